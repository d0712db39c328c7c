/**
 * `contract finalize` convergence pinned where a mutation audit found it unguarded:
 * re-finalizing a closed, non-COMPLETE row replaces its evidence set and never drops its plan-task binding.
 * Each test has its own HANDOFF_HOME.
 */
import { describe, expect, it } from 'vitest';
import { run, tempHome } from '../helpers/cli.js';
import { addBrief } from '../helpers/evidence.js';
import { envelopeIn, mintDraft, prefix, rowOf, seedRow, writeDraft } from '../helpers/store-cli.js';

const finalize = (home: string, id: string, ...extra: string[]) =>
  run(home, ['contract', 'finalize', '--draft-id', id, '--workspace', 'ws', '--json', ...extra]);

describe('finalize convergence (mutation audit)', () => {
  it('re-finalizing a BLOCKED row replaces its update_contracts evidence (the earlier set is gone)', () => {
    const home = tempHome();
    const briefId = addBrief(home, 'pay', ['AC-1', 'AC-2']).brief.id as number;
    const id = mintDraft();
    const text = (ac: string, t: string) => ({
      contract: 'evidence',
      payload: { brief_id: briefId, ac_id: ac, type: 'text', text: t },
    });

    writeDraft(home, id, envelopeIn(prefix(id), 'BLOCKED', { update_contracts: [text('AC-1', 'first')] }));
    const first = finalize(home, id);
    expect(first.json, first.stderr).toMatchObject({ status: 'ok', created: true, evidence_inserted: 1 });

    writeDraft(
      home,
      id,
      envelopeIn(prefix(id), 'BLOCKED', { update_contracts: [text('AC-2', 'second')], report_prose: 'again' }),
    );
    const second = finalize(home, id);
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect(second.json).toMatchObject({
      status: 'ok',
      created: true,
      evidence_inserted: 1,
      handoff_id: first.json.handoff_id,
    });

    const list = run(home, ['evidence', 'list', '--brief', 'pay', '--workspace', 'ws', '--json']);
    expect(list.code).toBe(0);
    const ofRow = list.json.evidence.filter((e: any) => e.handoff_id === first.json.handoff_id);
    expect(ofRow.map((e: any) => [e.ac_id, e.text])).toEqual([['AC-2', 'second']]);
  });

  it('re-finalizing a bound row without --plan-task-id keeps its binding (plan_task_id is set once)', () => {
    const home = tempHome();
    const id = mintDraft();
    writeDraft(home, id, envelopeIn(prefix(id), 'BLOCKED'));
    const first = finalize(home, id, '--plan-task-id', 'T-1');
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(rowOf(home, id)?.plan_task_id).toBe('T-1');

    writeDraft(home, id, envelopeIn(prefix(id), 'BLOCKED', { report_prose: 'converged again' }));
    const second = finalize(home, id);
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect(second.json).toMatchObject({ status: 'ok', created: true });
    const row = rowOf(home, id);
    expect(row?.plan_task_id).toBe('T-1');
    expect(JSON.parse(row?.raw_handoff_json).report_prose).toBe('converged again');
  });
});

describe('finalize no-op probe (mutation audit)', () => {
  it('a COMPLETE row is write-once before any check: a later invalid draft still gets complete_write_once, exit 0, row untouched', () => {
    const home = tempHome();
    const id = mintDraft();
    writeDraft(home, id, envelopeIn(prefix(id), 'COMPLETE'));
    const first = finalize(home, id);
    expect(first.json, first.stderr).toMatchObject({ status: 'ok', created: true, agent_state: 'COMPLETE' });
    const before = rowOf(home, id);

    // The draft now says IN_PROGRESS (a closing-state refusal) with a foreign agent id: none of that is judged.
    writeDraft(home, id, envelopeIn('affffffffffffffff', 'IN_PROGRESS'));
    const again = finalize(home, id);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.json).toMatchObject({
      status: 'ok',
      created: false,
      unchanged_reason: 'complete_write_once',
      agent_state: 'COMPLETE',
    });
    expect(rowOf(home, id)).toEqual(before);
  });

  it('a captured IN_PROGRESS row with the same envelope is not "identical": finalize still refuses CLOSING_STATE_REQUIRED', () => {
    const home = tempHome();
    const id = mintDraft();
    const envelope = envelopeIn(prefix(id), 'IN_PROGRESS');
    seedRow(home, { contract_id: id, agent_state: 'IN_PROGRESS', cut_reason: 'backstop_capture', raw: envelope });
    writeDraft(home, id, envelope);
    const before = rowOf(home, id);
    const r = finalize(home, id);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.json).toMatchObject({ status: 'rejected', code: 'CLOSING_STATE_REQUIRED' });
    expect(rowOf(home, id)).toEqual(before);
  });
});
