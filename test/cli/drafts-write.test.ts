import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, snapshot, tempHome } from '../helpers/cli.js';
import { completeWrites, draftPathOf, initDraft, readDraftJson, runUnchanged } from '../helpers/drafts.js';

const view = (home: string, id: string): any =>
  run(home, ['contract', 'view', '--draft-id', id, '--json']).json.envelope;

describe('set and add: the documented examples on the initial envelope', () => {
  it.each([
    [['set', 'approval_request.exact_content', 'git push'], 0, undefined],
    [['set', 'agent_status.agent_state', 'COMPLETE'], 1, ['COMPLETE_SHAPE', 'VERIFICATION_RESULT']],
    [['set', 'work_phase', 'Executing'], 0, undefined],
    [['set', 'agent_status.pending_steps.0', 'x'], 1, 'PATH_NOT_OBJECT'],
    [['add', 'failure_report', 'x'], 1, ['FAILURE_REPORT_SHAPE']],
    [['add', 'agent_status.next_action', 'x'], 1, 'NOT_A_LIST'],
    [['add', 'evidence_report.key_outputs', '{"a":1}'], 0, undefined],
    [['set', 'evidence_report.files_checkd', '[]'], 1, ['UNKNOWN_FIELD']],
    [['set', 'agent_status.agent_name', 'x'], 1, ['MISPLACED_KEY']],
  ])('%j → exit %i %j', (args, exit, codes) => {
    const home = tempHome();
    const id = initDraft(home);
    const before = snapshot(home);
    const [verb, ...rest] = args;
    const r = run(home, ['contract', verb, ...rest, '--draft-id', id, '--json']);
    expect(r.code, r.stderr).toBe(exit);
    if (exit !== 0) expect(snapshot(home)).toEqual(before);
    if (Array.isArray(codes)) expect(r.json).toMatchObject({ status: 'rejected', draft_id: id, codes });
    else if (typeof codes === 'string') expect(r.json).toMatchObject({ status: 'rejected', code: codes, draft_id: id });
  });

  it('stores the documented outcomes exactly', () => {
    const home = tempHome();
    const id = initDraft(home);
    run(home, ['contract', 'set', 'approval_request.exact_content', 'git push', '--draft-id', id]);
    const w = run(home, ['contract', 'set', 'work_phase', 'Executing', '--draft-id', id, '--json']);
    expect(w.json.canonicalized).toEqual([{ path: 'work_phase', from: 'Executing', to: 'executing' }]);
    expect(w.stderr).toBe('[CANONICALIZED] work_phase: "Executing" -> "executing"\n');
    run(home, ['contract', 'add', 'evidence_report.key_outputs', '{"a":1}', '--draft-id', id]);
    const e = view(home, id);
    expect(e.approval_request).toEqual({ exact_content: 'git push' });
    expect(e.work_phase).toBe('executing');
    expect(e.evidence_report.key_outputs).toEqual([{ a: 1 }]);
  });
});

describe('write output', () => {
  it('human: one OK line on stdout; json: status, draft_id, mirrored, reason', () => {
    const home = tempHome();
    const id = initDraft(home);
    const h = run(home, ['contract', 'set', 'report_prose', 'hello', '--draft-id', id]);
    expect([h.code, h.stdout, h.stderr]).toEqual([0, `OK: draft ${id} updated and valid.\n`, '']);
    const j = run(home, ['contract', 'add', 'evidence_report.commands_run', 'npm test', '--draft-id', id, '--json']);
    expect(j.json).toEqual({ status: 'ok', draft_id: id, mirrored: false, mirror_skipped_reason: 'no_store' });
  });

  it('a rejected write prints the rejection block (human) or object (json) and writes nothing', () => {
    const home = tempHome();
    const id = initDraft(home);
    const h = runUnchanged(home, ['contract', 'set', 'agent_status.agent_state', 'COMPLETE', '--draft-id', id]);
    expect(h.code).toBe(1);
    expect(h.stdout).toBe('');
    const lines = h.stderr.split('\n');
    expect(lines[0]).toMatch(/^Rejected: .*failed validation.*nothing was written/);
    expect(lines[1]).toMatch(/^ {2}COMPLETE_SHAPE \[agent_status\.next_action\]: /);
    expect(lines[2]).toMatch(/^ {2}VERIFICATION_RESULT \[evidence_report\.verification\]: /);
    expect(lines[3]).toContain('--explain');
    expect(
      runUnchanged(home, ['contract', 'set', 'agent_status.agent_state', 'COMPLETE', '--draft-id', id, '--explain'])
        .stderr,
    ).toContain('build order');
    const j = runUnchanged(home, [
      'contract',
      'set',
      'agent_status.agent_state',
      'COMPLETE',
      '--draft-id',
      id,
      '--json',
    ]);
    expect(Object.keys(j.json)).toEqual(['status', 'draft_id', 'codes', 'errors']);
    expect(j.json.errors.map((e: any) => [e.code, e.path])).toEqual([
      ['COMPLETE_SHAPE', 'agent_status.next_action'],
      ['VERIFICATION_RESULT', 'evidence_report.verification'],
    ]);
  });

  it('acceptance 4: three adds keep their order; objects, booleans and non-JSON text are stored as such', () => {
    const home = tempHome();
    const id = initDraft(home);
    for (const v of ['one', 'two', 'three'])
      expect(run(home, ['contract', 'add', 'evidence_report.commands_run', v, '--draft-id', id]).code).toBe(0);
    expect(view(home, id).evidence_report.commands_run).toEqual(['one', 'two', 'three']);
    for (const v of ['{"a":1}', 'true', 'not json {', '42', '-- -5']) {
      const args = v.startsWith('-- ') ? ['--draft-id', id, '--', v.slice(3)] : [v, '--draft-id', id];
      const field = ['contract', 'add', 'evidence_report.key_outputs'];
      expect(run(home, [...field, ...args]).code).toBe(0);
    }
    expect(view(home, id).evidence_report.key_outputs).toEqual([{ a: 1 }, true, 'not json {', 42, -5]);
  });

  it('acceptance 5: COMPLETE is refused on a fresh draft; the build order stores pass and COMPLETE', () => {
    const home = tempHome();
    const id = initDraft(home);
    const r = runUnchanged(home, [
      'contract',
      'set',
      'agent_status.agent_state',
      'COMPLETE',
      '--draft-id',
      id,
      '--json',
    ]);
    expect(r.code).toBe(1);
    expect(r.json.codes).toEqual(expect.arrayContaining(['COMPLETE_SHAPE', 'VERIFICATION_RESULT']));
    for (const args of completeWrites(id)) expect(run(home, args).code).toBe(0);
    const e = view(home, id);
    expect(e.evidence_report.verification.result).toBe('pass');
    expect(e.agent_status.agent_state).toBe('COMPLETE');
    expect(e.agent_status.next_action).toBe('done');
  });

  it('new keys are appended at the end of their object; existing keys keep their place', () => {
    const home = tempHome();
    const id = initDraft(home);
    run(home, ['contract', 'set', 'user_facing_summary', 'hi', '--draft-id', id]);
    run(home, ['contract', 'set', 'agent_status.next_action', 'later', '--draft-id', id]);
    const e = readDraftJson(home, id);
    expect(Object.keys(e).at(-1)).toBe('user_facing_summary');
    expect(Object.keys(e.agent_status)).toEqual(['agent_state', 'agent_id', 'pending_steps', 'next_action']);
  });
});

describe('fill', () => {
  it('acceptance 6: the documented fill example, exactly; set clears a populated list', () => {
    const home = tempHome();
    const id = initDraft(home);
    const fill = (patch: unknown): any =>
      run(home, ['contract', 'fill', '--draft-id', id, '--json', JSON.stringify(patch)]);
    expect(run(home, ['contract', 'add', 'evidence_report.commands_run', 'a', '--draft-id', id]).code).toBe(0);
    const before = snapshot(home);
    const refused = fill({ evidence_report: { commands_run: ['b'] } });
    expect(refused.code).toBe(1);
    expect(snapshot(home)).toEqual(before);
    expect(refused.json).toEqual({
      status: 'rejected',
      code: 'FILL_LIST_COLLISION',
      error: expect.stringMatching(/add.*set|set.*add/),
      draft_id: id,
      collisions: [{ path: 'evidence_report.commands_run', existing: 1, incoming: 1, incoming_type: 'array' }],
    });
    expect(fill({ evidence_report: { commands_run: ['a'] } }).code).toBe(0);
    expect(fill({ evidence_report: { files_checked: ['x'] } }).code).toBe(0);
    expect(run(home, ['contract', 'add', 'evidence_report.commands_run', 'c', '--draft-id', id]).code).toBe(0);
    expect(view(home, id).evidence_report.commands_run).toEqual(['a', 'c']);
    expect(view(home, id).evidence_report.files_checked).toEqual(['x']);

    expect(run(home, ['contract', 'add', 'evidence_report.open_gaps', 'g', '--draft-id', id]).code).toBe(0);
    expect(run(home, ['contract', 'set', 'evidence_report.open_gaps', '[]', '--draft-id', id]).code).toBe(0);
    expect(view(home, id).evidence_report.open_gaps).toEqual([]);
  });

  it('is always JSON: success object, {} saves unchanged content, null stores null', () => {
    const home = tempHome();
    const id = initDraft(home);
    const text = readFileSync(draftPathOf(home, id), 'utf8');
    const r = run(home, ['contract', 'fill', '--draft-id', id, '--json', '{}']);
    expect(r.json).toEqual({ status: 'ok', draft_id: id, mirrored: false, mirror_skipped_reason: 'no_store' });
    expect(readFileSync(draftPathOf(home, id), 'utf8')).toBe(text);
    run(home, ['contract', 'fill', '--draft-id', id, '--json', '{"report_prose":"x","user_facing_summary":null}']);
    const e = readDraftJson(home, id);
    expect([e.report_prose, e.user_facing_summary, 'user_facing_summary' in e]).toEqual(['x', null, true]);
  });

  it('reads the patch from --json-file and from stdin (long prose)', () => {
    const home = tempHome();
    const id = initDraft(home);
    const prose = `line one\nline "two"\n${'x'.repeat(5000)}`;
    const file = join(home, 'patch.json');
    writeFileSync(file, JSON.stringify({ report_prose: prose }));
    expect(run(home, ['contract', 'fill', '--draft-id', id, '--json-file', file]).code).toBe(0);
    expect(readDraftJson(home, id).report_prose).toBe(prose);
    const r = run(home, ['contract', 'fill', '--draft-id', id, '--json-file', '-'], {
      input: '{"work_phase":"PLANNING"}',
    });
    expect(r.json.canonicalized).toEqual([{ path: 'work_phase', from: 'PLANNING', to: 'planning' }]);
  });

  it('a rejected fill is reported as JSON with the validator codes', () => {
    const home = tempHome();
    const id = initDraft(home);
    const r = runUnchanged(home, ['contract', 'fill', '--draft-id', id, '--json', '{"findings":[1]}']);
    expect(r.code).toBe(1);
    expect(r.json).toMatchObject({ status: 'rejected', draft_id: id, codes: ['UNKNOWN_FIELD'] });
  });
});

describe('sanitization of an inherited draft', () => {
  it('acceptance 13: a root commands_run is stripped by the next set, naming its home; validate reports MISPLACED_KEY', () => {
    const home = tempHome();
    const id = initDraft(home);
    const path = draftPathOf(home, id);
    const e = readDraftJson(home, id);
    e.commands_run = ['npm test'];
    writeFileSync(path, JSON.stringify(e, null, 2));
    const v = runUnchanged(home, ['contract', 'validate', '--draft-id', id, '--json']);
    expect(v.code).toBe(1);
    expect(v.json.errors.map((x: any) => [x.code, x.path])).toEqual([['MISPLACED_KEY', 'commands_run']]);
    const r = run(home, ['contract', 'set', 'report_prose', 'x', '--draft-id', id, '--json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^\[SANITIZED\] commands_run: .*evidence_report\.commands_run/);
    expect(r.json.sanitized).toEqual([
      { path: 'commands_run', action: 'removed', home: 'evidence_report.commands_run' },
    ]);
    expect('commands_run' in readDraftJson(home, id)).toBe(false);
  });

  it('the [SANITIZED] lines are printed even when the write is then refused; nothing is persisted', () => {
    const home = tempHome();
    const id = initDraft(home);
    const e = readDraftJson(home, id);
    e.agent_status.pending_steps = 'step';
    writeFileSync(draftPathOf(home, id), JSON.stringify(e, null, 2));
    const r = runUnchanged(home, ['contract', 'set', 'agent_status.agent_state', 'BOGUS', '--draft-id', id, '--json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^\[SANITIZED\] agent_status\.pending_steps: /);
    expect(r.json.sanitized).toEqual([{ path: 'agent_status.pending_steps', action: 'wrapped' }]);
    expect(r.json.codes).toEqual(['PLAN_STATUS']);
  });

  it('view and validate never sanitize', () => {
    const home = tempHome();
    const id = initDraft(home);
    const e = readDraftJson(home, id);
    e.agent_status.pending_steps = 'step';
    writeFileSync(draftPathOf(home, id), JSON.stringify(e, null, 2));
    const v = runUnchanged(home, ['contract', 'view', '--draft-id', id, '--json']);
    expect(v.json.envelope.agent_status.pending_steps).toBe('step');
    expect(v.stderr).toBe('');
    expect(runUnchanged(home, ['contract', 'validate', '--draft-id', id, '--json']).json.codes).toEqual(['FIELD_TYPE']);
  });
});
