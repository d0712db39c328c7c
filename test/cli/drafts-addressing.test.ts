import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, tempHome } from '../helpers/cli.js';
import { closeDraft, draftPathOf, initDraft, readDraftJson, runUnchanged, setMtime } from '../helpers/drafts.js';

const A = 'aaaaaaaaaaaaaaaa0';
const B = 'abbbbbbbbbbbbbbb0';
const T0 = Date.parse('2030-01-01T00:00:00.000Z');

describe('addressing', () => {
  it('no drafts and no flags → DRAFT_NOT_FOUND pointing at init; the folder is not created', () => {
    const home = tempHome();
    const r = runUnchanged(home, ['contract', 'add', 'evidence_report.commands_run', 'x', '--json']);
    expect([r.code, r.json.code]).toEqual([3, 'DRAFT_NOT_FOUND']);
    expect(r.json.error).toContain('handoff contract init');
    expect(existsSync(join(home, 'drafts'))).toBe(false);
  });

  it('acceptance 8: a well-formed unknown --draft-id with no store → exit 3, no file created', () => {
    const home = tempHome();
    initDraft(home);
    const r = runUnchanged(home, ['contract', 'set', 'report_prose', 'x', '--draft-id', `${A}.123456`, '--json']);
    expect([r.code, r.json.code]).toEqual([3, 'DRAFT_NOT_FOUND']);
    expect(r.json.error).toContain(`${A}.123456`);
  });

  it('one draft resolves without flags; several drafts of one agent resolve to the newest', () => {
    const home = tempHome();
    const x = initDraft(home, ['--agent-id', A]);
    expect(run(home, ['contract', 'add', 'evidence_report.commands_run', 'one', '--json']).json.draft_id).toBe(x);
    const y = initDraft(home, ['--agent-id', A]);
    setMtime(draftPathOf(home, x), T0 + 10_000);
    setMtime(draftPathOf(home, y), T0);
    expect(run(home, ['contract', 'add', 'evidence_report.commands_run', 'two', '--json']).json.draft_id).toBe(x);
    expect(run(home, ['contract', 'view', '--agent-id', A, '--json']).code).toBe(2);
    expect(readDraftJson(home, x).evidence_report.commands_run).toEqual(['one', 'two']);
  });

  it('acceptance 9: two agents, no flags → AMBIGUOUS_DRAFT listing both, both drafts unchanged', () => {
    const home = tempHome();
    const a = initDraft(home, ['--agent-id', A]);
    const b = initDraft(home, ['--agent-id', B]);
    setMtime(draftPathOf(home, a), T0 + 5000);
    setMtime(draftPathOf(home, b), T0);
    const j = runUnchanged(home, ['contract', 'add', 'evidence_report.commands_run', 'x', '--json']);
    expect(j.code).toBe(2);
    expect(j.json).toEqual({
      status: 'error',
      code: 'AMBIGUOUS_DRAFT',
      error: expect.stringContaining('--draft-id'),
      candidates: [
        { draft_id: a, agent_id: A, mtime: new Date(T0 + 5000).toISOString(), agent_state: 'IN_PROGRESS' },
        { draft_id: b, agent_id: B, mtime: new Date(T0).toISOString(), agent_state: 'IN_PROGRESS' },
      ],
    });
    expect(j.json.error).toMatch(
      /2 drafts of 2 agents \(.*aaaaaaaaaaaaaaaa0.*abbbbbbbbbbbbbbb0|.*abbbbbbbbbbbbbbb0.*aaaaaaaaaaaaaaaa0/,
    );
    expect(j.json.error).toContain('--agent-id');
    const h = runUnchanged(home, ['contract', 'view']);
    expect([h.code, h.stdout]).toEqual([2, '']);
    expect(h.stderr.split('\n')).toEqual([
      expect.stringMatching(/^Error: 2 drafts of 2 agents/),
      `  --draft-id ${a}  agent=${A}  ${new Date(T0 + 5000).toISOString()}  IN_PROGRESS`,
      `  --draft-id ${b}  agent=${B}  ${new Date(T0).toISOString()}  IN_PROGRESS`,
      '',
    ]);
    for (const verb of [['set', 'report_prose', 'x'], ['fill', '--json', '{}'], ['validate']]) {
      const r = runUnchanged(home, ['contract', ...verb, ...(verb[0] === 'fill' ? [] : ['--json'])]);
      expect(r.json.code).toBe('AMBIGUOUS_DRAFT');
    }
  });

  it('acceptance 9: --agent-id of an agent with two live drafts → AMBIGUOUS_AGENT_DRAFT', () => {
    const home = tempHome();
    const x = initDraft(home, ['--agent-id', A]);
    const y = initDraft(home, ['--agent-id', A]);
    initDraft(home, ['--agent-id', B]);
    setMtime(draftPathOf(home, x), T0);
    setMtime(draftPathOf(home, y), T0 + 1000);
    const r = runUnchanged(home, ['contract', 'set', 'report_prose', 'x', '--agent-id', A, '--json']);
    expect(r.code).toBe(2);
    expect(r.json.code).toBe('AMBIGUOUS_AGENT_DRAFT');
    expect(r.json.error).toMatch(/2 live drafts.*only --draft-id/);
    expect(r.json.candidates.map((c: any) => c.draft_id)).toEqual([y, x]);
    expect(run(home, ['contract', 'set', 'report_prose', 'x', '--agent-id', B]).code).toBe(0);
  });

  it('lists at most 5 candidates in human mode and 6 agents in the header; JSON lists them all', () => {
    const home = tempHome();
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) {
      const agent = `a${String(i).repeat(16)}`;
      ids.push(initDraft(home, ['--agent-id', agent]));
      setMtime(draftPathOf(home, ids[i]), T0 + i * 1000);
    }
    writeFileSync(draftPathOf(home, ids[7]), 'broken');
    setMtime(draftPathOf(home, ids[7]), T0 + 7000);
    const j = runUnchanged(home, ['contract', 'view', '--json']);
    expect(j.json.candidates).toHaveLength(8);
    expect(j.json.candidates[0]).toMatchObject({ draft_id: ids[7], agent_state: null });
    expect(j.json.error).toMatch(/^8 drafts of 8 agents \((a\d{16}, ){6}\.\.\.\)/);
    const h = runUnchanged(home, ['contract', 'view']);
    const lines = h.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(7);
    expect(lines[1]).toMatch(/ {2}\?$/);
    expect(lines[6]).toBe('  ... and 3 more (newest first)');
  });

  it('spent drafts step aside: live ones win; with none live the newest spent is taken', () => {
    const home = tempHome();
    const spentA = initDraft(home, ['--agent-id', A]);
    closeDraft(home, spentA);
    const liveA = initDraft(home, ['--agent-id', A]);
    setMtime(draftPathOf(home, spentA), T0 + 100_000);
    setMtime(draftPathOf(home, liveA), T0);
    // --agent-id: one live → that one, although the spent one is newer.
    expect(run(home, ['contract', 'set', 'report_prose', 'a', '--agent-id', A, '--json']).json.draft_id).toBe(liveA);
    // No flags: B's only draft is spent, A has a live one → the pool is the live drafts only, no ambiguity.
    const spentB = initDraft(home, ['--agent-id', B]);
    closeDraft(home, spentB);
    setMtime(draftPathOf(home, spentB), T0 + 200_000);
    expect(run(home, ['contract', 'view', '--json']).json.draft_id).toBe(liveA);
    // B with no live draft: --agent-id B takes the newest spent one, and a write opens a continuation.
    expect(run(home, ['contract', 'view', '--agent-id', B, '--json']).json.draft_id).toBe(spentB);
    const w = run(home, ['contract', 'add', 'evidence_report.commands_run', 'x', '--agent-id', B, '--json']);
    expect(w.code).toBe(0);
    expect(w.json.continuation.continues_contract_id).toBe(spentB);
  });

  it('all drafts spent, two agents → AMBIGUOUS_DRAFT over all of them', () => {
    const home = tempHome();
    const a = initDraft(home, ['--agent-id', A]);
    const b = initDraft(home, ['--agent-id', B]);
    closeDraft(home, a);
    closeDraft(home, b);
    const r = runUnchanged(home, ['contract', 'validate', '--json']);
    expect(r.json.code).toBe('AMBIGUOUS_DRAFT');
    expect(r.json.candidates.map((c: any) => c.agent_state)).toEqual(['BLOCKED', 'BLOCKED']);
  });
});
