/**
 * A gate given --draft-id judges that contract and binds nothing: the claim and the backstop
 * capture store NULL as harness_id, never the hook's session, and `claimed` in --json tells the truth.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { initDraft } from '../helpers/drafts.js';
import { tempHome } from '../helpers/cli.js';
import { dispatchJson, gate, row, stopInput, subagentStop, writeTranscript } from '../helpers/gate.js';

const hookStop = (session: string): string => stopInput({ session, extra: { stop_reason: 'end_turn' } });

describe('hand-run gates bind nothing', () => {
  it('--draft-id on a dispatched row: blocked and captured, harness_id stays NULL, claimed false', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g']);
    const r = gate(home, ['--draft-id', d.contract_id, '--json'], hookStop('sess-hand'));
    expect(r.code).toBe(2);
    expect(r.json).toMatchObject({ decision: 'block', lane: 'draft_id', captured: true, claimed: false });
    expect(row(home, d.contract_id)).toMatchObject({
      agent_state: 'IN_PROGRESS',
      cut_reason: 'backstop_capture',
      harness_id: null,
    });

    // The next real stop of that session is not judged against the contract the hand-run gate looked at.
    const next = gate(home, ['--json'], hookStop('sess-hand'));
    expect(next.json.lane).not.toBe('harness_id');
    expect(next.json.codes).toEqual(['ROW_NOT_FOUND']);
  });

  it('--draft-id on a draft without a row: the capture inserts the row with harness_id NULL', () => {
    const home = tempHome();
    dispatchJson(home, ['--goal', 'the store exists']);
    const id = initDraft(home);
    const r = gate(home, ['--draft-id', id, '--json', '--workspace', 'ws'], hookStop('sess-new'));
    expect(r.code).toBe(2);
    expect(r.json).toMatchObject({ lane: 'draft_id', captured: true, claimed: false });
    expect(row(home, id)).toMatchObject({
      agent_state: 'IN_PROGRESS',
      cut_reason: 'backstop_capture',
      harness_id: null,
    });
  });

  it('a real hook stop that finds a dispatched contract through its prompt binds the run and says claimed: true', () => {
    const home = tempHome();
    const id = dispatchJson(home, ['--goal', 'g']).contract_id as string;
    const dir = mkdtempSync(join(tmpdir(), 'transcripts-'));
    const transcript = writeTranscript(dir, 'agent.jsonl', `do the task\n\ncontract_id: ${id}\n`);
    const input = subagentStop({ session: 's', agentId: 'run-7', transcript, extra: { stop_reason: 'end_turn' } });
    const r = gate(home, ['--json', '--workspace', 'ws'], input);
    expect(r.code).toBe(2);
    expect(r.json).toMatchObject({ lane: 'prompt_block', captured: true, claimed: true });
    expect(row(home, id).harness_id).toBe('run-7');
  });
});
