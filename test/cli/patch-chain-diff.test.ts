/** `contract patch` and `contract chain --diff` through the binary. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import mergePatch from 'json-merge-patch';
import { describe, expect, it } from 'vitest';
import { run, snapshot, tempHome } from '../helpers/cli.js';
import { initDraft, readDraftJson } from '../helpers/drafts.js';

const patch = (home: string, id: string, body: unknown, extra: string[] = []) =>
  run(home, ['contract', 'patch', '--draft-id', id, '--json', JSON.stringify(body), ...extra]);

describe('contract patch', () => {
  it('removes a block written by mistake (null removes), replaces a populated list, and validates the result', () => {
    const home = tempHome();
    const id = initDraft(home);
    expect(run(home, ['contract', 'set', 'approval_request.exact_content', 'git push', '--draft-id', id]).code).toBe(0);
    expect(run(home, ['contract', 'add', 'evidence_report.files_checked', 'a.ts', '--draft-id', id]).code).toBe(0);
    const r = patch(home, id, { approval_request: null, evidence_report: { files_checked: ['b.ts', 'c.ts'] } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toMatchObject({ status: 'ok', draft_id: id });
    const draft = readDraftJson(home, id);
    expect(Object.hasOwn(draft, 'approval_request')).toBe(false);
    expect(draft.evidence_report.files_checked).toEqual(['b.ts', 'c.ts']);
  });

  it('reads the patch from --json-file and from stdin', () => {
    const home = tempHome();
    const id = initDraft(home);
    const file = join(home, 'p.json');
    writeFileSync(file, JSON.stringify({ report_prose: 'from a file' }));
    expect(run(home, ['contract', 'patch', '--draft-id', id, '--json-file', file]).code).toBe(0);
    expect(readDraftJson(home, id).report_prose).toBe('from a file');
    expect(
      run(home, ['contract', 'patch', '--draft-id', id, '--json-file', '-'], { input: '{"report_prose":null}' }).code,
    ).toBe(0);
    expect(Object.hasOwn(readDraftJson(home, id), 'report_prose')).toBe(false);
  });

  it.each([
    [{ agent_status: null }, 1, 'PATCH_FORBIDDEN'],
    [{ agent_status: { agent_id: 'a1111111111111111' } }, 1, 'PATCH_FORBIDDEN'],
    [{ _contract_tag: 'x' }, 1, 'PATCH_FORBIDDEN'],
    [JSON.parse('{"evidence_report":{"__proto__":{"x":1}}}'), 1, 'PATCH_FORBIDDEN'],
    [[1, 2], 2, 'PATCH_NOT_OBJECT'],
  ])('%j is refused (exit %i, %s) and nothing is written', (body, exit, code) => {
    const home = tempHome();
    const id = initDraft(home);
    const before = snapshot(home);
    const r = patch(home, id, body);
    expect(r.code).toBe(exit);
    expect(r.json).toMatchObject({ code });
    expect(snapshot(home)).toEqual(before);
  });

  it('a patch whose result fails validation is rejected with the validator codes; nothing is written', () => {
    const home = tempHome();
    const id = initDraft(home);
    const before = snapshot(home);
    const r = patch(home, id, { agent_status: { next_action: null } });
    expect(r.code).toBe(1);
    expect(r.json).toMatchObject({ status: 'rejected', draft_id: id });
    expect(r.json.codes.length).toBeGreaterThan(0);
    expect(snapshot(home)).toEqual(before);
  });

  it('needs exactly one of --json and --json-file (USAGE, exit 2)', () => {
    const home = tempHome();
    const id = initDraft(home);
    expect(run(home, ['contract', 'patch', '--draft-id', id]).json).toMatchObject({ code: 'USAGE' });
    expect(run(home, ['contract', 'patch', '--draft-id', id, '--json', '{}', '--json-file', '-']).code).toBe(2);
  });
});

describe('contract chain --diff', () => {
  it('each step is the merge patch from the previous envelope; applying them in order rebuilds every stored envelope', () => {
    const home = tempHome();
    const env = { HANDOFF_WORKSPACE: 'ws' };
    const id = initDraft(home);
    const w = (args: string[]) => expect(run(home, ['contract', ...args], { env }).code).toBe(0);
    w(['set', 'work_phase', 'executing', '--draft-id', id]);
    w(['set', 'agent_status.agent_state', 'BLOCKED', '--draft-id', id]);
    w(['finalize', '--draft-id', id]);
    const cont = run(home, ['contract', 'set', 'report_prose', 'second turn', '--draft-id', id, '--json'], { env });
    const next = cont.json.continuation.contract_id as string;
    w(['set', 'work_phase', 'null', '--draft-id', next]);
    w(['set', 'agent_status.agent_state', 'BLOCKED', '--draft-id', next]);
    w(['finalize', '--draft-id', next]);

    const r = run(home, ['contract', 'chain', '--contract-id', next, '--diff', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.status).toBe('ok');
    expect(r.json.steps.map((s: any) => s.contract_id)).toEqual([id, next]);
    const rows = run(home, ['contract', 'list', '--with-envelope', '--json'], { env }).json.handoffs as any[];
    const stored = (cid: string) => rows.find((row) => row.contract_id === cid).envelope;
    let rebuilt: unknown = {};
    for (const step of r.json.steps) {
      rebuilt = mergePatch.apply(rebuilt, step.patch);
      // A merge patch drops keys set to null; null_paths names them, so both together rebuild the envelope.
      for (const path of step.null_paths as string[]) {
        const keys = path.split('.');
        let o = rebuilt as Record<string, any>;
        for (const k of keys.slice(0, -1)) o = o[k];
        o[keys[keys.length - 1]] = null;
      }
      expect(rebuilt).toEqual(stored(step.contract_id));
    }
    expect(r.json.steps[1].patch).toMatchObject({ report_prose: 'second turn', work_phase: null });
    expect(r.json.steps[1].null_paths).toContain('work_phase');
    const human = run(home, ['contract', 'chain', '--contract-id', id, '--diff'], { env });
    expect(human.stdout).toMatch(/^step 1: handoff_id=\d+ contract_id=/);
    expect(human.stdout).toContain('set to null: ');
  });
});
