import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, snapshot, tempHome } from '../helpers/cli.js';
import { draftPathOf, hasDb, initDraft, readDraftJson, runUnchanged } from '../helpers/drafts.js';

const valid = (agent = 'a0123456789abcdef') => ({
  agent_status: { agent_state: 'IN_PROGRESS', agent_id: agent, pending_steps: [], next_action: 'pending' },
  evidence_report: {
    patterns_checked: [],
    files_checked: [],
    commands_run: [],
    key_outputs: [],
    verbatim_outputs: [],
    cross_layer_impacts: [],
    open_gaps: [],
  },
});

describe('contract view', () => {
  it('human: the draft object as 2-space JSON; --json: the same with status ok', () => {
    const home = tempHome();
    const id = initDraft(home);
    const h = runUnchanged(home, ['contract', 'view', '--draft-id', id]);
    const shown = { draft_id: id, envelope_source: 'draft', envelope: readDraftJson(home, id) };
    expect(h.stdout).toBe(`${JSON.stringify(shown, null, 2)}\n`);
    const j = runUnchanged(home, ['contract', 'view', '--draft-id', id, '--json']);
    expect(j.stdout).toBe(`${JSON.stringify({ status: 'ok', ...shown })}\n`);
  });

  it('acceptance 7: --field prints [] and null; a missing key → exit 3', () => {
    const home = tempHome();
    const id = initDraft(home);
    expect(
      runUnchanged(home, ['contract', 'view', '--field', 'evidence_report.open_gaps', '--draft-id', id]).stdout,
    ).toBe('[]\n');
    expect(runUnchanged(home, ['contract', 'view', '--field', 'work_phase', '--draft-id', id]).stdout).toBe('null\n');
    expect(
      runUnchanged(home, ['contract', 'view', '--field', 'agent_status.agent_state', '--draft-id', id]).stdout,
    ).toBe('"IN_PROGRESS"\n');
    const missing = runUnchanged(home, [
      'contract',
      'view',
      '--field',
      'evidence_report.no_such_key',
      '--draft-id',
      id,
      '--json',
    ]);
    expect([missing.code, missing.json.code]).toEqual([3, 'FIELD_NOT_FOUND']);
    expect(missing.json.error).toContain('no_such_key');
    expect(missing.json.error).toContain('evidence_report');
    const j = runUnchanged(home, ['contract', 'view', '--field', 'agent_status', '--draft-id', id, '--json']);
    expect(j.json).toEqual({
      status: 'ok',
      draft_id: id,
      field: 'agent_status',
      value: readDraftJson(home, id).agent_status,
    });
    const top = runUnchanged(home, ['contract', 'view', '--field', 'nope', '--draft-id', id, '--json']);
    expect(top.json.error).toContain('(root)');
  });

  it('never validates: an invalid draft is shown as stored', () => {
    const home = tempHome();
    const id = initDraft(home);
    writeFileSync(draftPathOf(home, id), '{"anything": [1, 2]}');
    expect(runUnchanged(home, ['contract', 'view', '--draft-id', id, '--json']).json.envelope).toEqual({
      anything: [1, 2],
    });
  });
});

describe('contract validate', () => {
  it('draft mode: OK line / ok object; invalid → rejection block, exit 1; nothing is ever written', () => {
    const home = tempHome();
    const id = initDraft(home);
    const ok = runUnchanged(home, ['contract', 'validate', '--draft-id', id]);
    expect([ok.code, ok.stdout]).toEqual([0, `OK: ${id} is valid.\n`]);
    expect(runUnchanged(home, ['contract', 'validate', '--json']).json).toEqual({
      status: 'ok',
      draft_id: id,
      resolved: 'newest_in_workspace',
    });
    const e = readDraftJson(home, id);
    e.agent_status.agent_state = 'COMPLETE';
    writeFileSync(draftPathOf(home, id), JSON.stringify(e));
    const bad = runUnchanged(home, ['contract', 'validate', '--draft-id', id]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(
      /^Rejected: draft .* failed validation\.\n {2}COMPLETE_SHAPE \[agent_status\.next_action\]: /,
    );
    const j = runUnchanged(home, ['contract', 'validate', '--draft-id', id, '--json']);
    expect(j.json).toMatchObject({
      status: 'rejected',
      draft_id: id,
      codes: ['COMPLETE_SHAPE', 'VERIFICATION_RESULT'],
    });
    expect(j.json.repair).toBeUndefined();
    expect(
      typeof runUnchanged(home, ['contract', 'validate', '--draft-id', id, '--json', '--explain']).json.repair,
    ).toBe('string');
  });

  it('never canonicalizes: a lower-case state is judged and left as written', () => {
    const home = tempHome();
    const id = initDraft(home);
    const e = readDraftJson(home, id);
    e.agent_status.agent_state = 'blocked.';
    writeFileSync(draftPathOf(home, id), JSON.stringify(e));
    const before = readFileSync(draftPathOf(home, id), 'utf8');
    expect(runUnchanged(home, ['contract', 'validate', '--draft-id', id]).code).toBe(0);
    expect(readFileSync(draftPathOf(home, id), 'utf8')).toBe(before);
  });

  it('--consolidation marks the turn when there is no row', () => {
    const home = tempHome();
    const id = initDraft(home);
    const e = readDraftJson(home, id);
    e.agent_status.agent_state = 'BLOCKED';
    writeFileSync(draftPathOf(home, id), JSON.stringify(e));
    expect(runUnchanged(home, ['contract', 'validate', '--draft-id', id]).code).toBe(0);
    const r = runUnchanged(home, ['contract', 'validate', '--draft-id', id, '--consolidation', '--json']);
    expect([r.code, r.json.codes]).toEqual([1, ['CONSOLIDATION_REPORT_SHAPE']]);
  });

  it('acceptance 12: --file - valid → 0; [] → 1 MISSING_FIELD agent_contract_handoff; { → 2; nothing written, no store', () => {
    const home = tempHome();
    const before = snapshot(home);
    const ok = run(home, ['contract', 'validate', '--file', '-'], { input: JSON.stringify(valid()) });
    expect([ok.code, ok.stdout]).toEqual([0, 'OK: stdin is valid.\n']);
    const okJ = run(home, ['contract', 'validate', '--file', '-', '--json'], { input: JSON.stringify(valid()) });
    expect(okJ.json).toEqual({ status: 'ok', source: '-' });
    const arr = run(home, ['contract', 'validate', '--file', '-', '--json'], { input: '[]' });
    expect(arr.code).toBe(1);
    expect(arr.json).toMatchObject({ status: 'rejected', source: '-', codes: ['MISSING_FIELD'] });
    expect(arr.json.errors.map((e: any) => [e.code, e.path])).toEqual([['MISSING_FIELD', 'agent_contract_handoff']]);
    const open = run(home, ['contract', 'validate', '--file', '-', '--json'], { input: '{' });
    expect([open.code, open.json.code]).toEqual([2, 'INVALID_JSON']);
    const empty = run(home, ['contract', 'validate', '--file', '-', '--json'], { input: '' });
    expect([empty.code, empty.json.code]).toEqual([2, 'INVALID_JSON']);
    expect(snapshot(home)).toEqual(before);
    expect(hasDb(home)).toBe(false);
  });

  it('--file PATH: the source is the path as given; any JSON value is judged', () => {
    const home = tempHome();
    const file = join(home, 'env.json');
    writeFileSync(file, JSON.stringify(valid()));
    const before = snapshot(home);
    expect(run(home, ['contract', 'validate', '--file', 'env.json']).stdout).toBe('OK: env.json is valid.\n');
    expect(run(home, ['contract', 'validate', '--file', file, '--json']).json).toEqual({ status: 'ok', source: file });
    writeFileSync(join(home, 'str.json'), '"x"');
    const s = run(home, ['contract', 'validate', '--file', 'str.json']);
    expect(s.code).toBe(1);
    expect(s.stderr).toMatch(
      /^Rejected: str\.json failed validation\.\n {2}MISSING_FIELD \[agent_contract_handoff\]: /,
    );
    delete (before as Record<string, unknown>)['str.json'];
    const after = snapshot(home);
    delete after['str.json'];
    expect(after).toEqual(before);
  });

  it('acceptance 12: validate never changes any mtime (draft mode, all verdicts)', () => {
    const home = tempHome();
    const id = initDraft(home);
    runUnchanged(home, ['contract', 'validate']);
    runUnchanged(home, ['contract', 'validate', '--draft-id', id, '--consolidation']);
    runUnchanged(home, ['contract', 'validate', '--agent-id', id.split('.')[0], '--json']);
  });
});
