/** Hostile inputs: a named error, the documented exit code, nothing written outside HANDOFF_HOME, no stack trace. */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, snapshot, tempHome } from '../helpers/cli.js';
import { draftPathOf, initDraft, readDraftJson } from '../helpers/drafts.js';

/** HANDOFF_HOME is a sub-folder of `outer`, so anything written beside or above it shows in snapshot(outer). */
function setup(): { outer: string; home: string; id: string } {
  const outer = tempHome();
  const home = join(outer, 'home');
  mkdirSync(home);
  return { outer, home, id: initDraft(home) };
}

const noStack = (stderr: string): void => expect(stderr).not.toMatch(/\n\s+at |Error: .*\n.*\.js:\d+/);

describe('hostile inputs', () => {
  it.each([
    ['--draft-id', '../../x', 'INVALID_DRAFT_ID'],
    ['--draft-id', 'a/../x', 'INVALID_DRAFT_ID'],
    ['--draft-id', 'a0123456789abcdef.012345/../../../x', 'INVALID_DRAFT_ID'],
    ['--draft-id', 'a0123456789abcdef/0123456', 'INVALID_DRAFT_ID'],
    ['--draft-id', '/etc/passwd', 'INVALID_DRAFT_ID'],
    ['--draft-id', 'a0123456789abcdef.*', 'INVALID_DRAFT_ID'],
    ['--agent-id', 'a8*', 'INVALID_AGENT_ID'],
    ['--agent-id', '*', 'INVALID_AGENT_ID'],
    ['--agent-id', 'a0123456789abcde?', 'INVALID_AGENT_ID'],
    ['--agent-id', 'a[0-9]*', 'INVALID_AGENT_ID'],
    ['--agent-id', '../a0123456789abcdef', 'INVALID_AGENT_ID'],
  ])('acceptance 3: %s %j → %s, exit 2, nothing written anywhere, no crash', (flag, value, code) => {
    const { outer, home } = setup();
    const before = snapshot(outer);
    for (const args of [
      ['set', 'report_prose', 'x'],
      ['add', 'evidence_report.commands_run', 'x'],
      ['fill', '--json', '{}'],
      ['view'],
      ['validate'],
      ['init'],
    ]) {
      const r = run(home, ['contract', ...args, flag, value, ...(args[0] === 'fill' ? [] : ['--json'])]);
      expect([r.code, r.json?.code], args.join(' ')).toEqual([2, code]);
      noStack(r.stderr);
    }
    expect(snapshot(outer)).toEqual(before);
  });

  it.each([
    ['set', '', 'INVALID_FIELD_PATH'],
    ['set', 'a..b', 'INVALID_FIELD_PATH'],
    ['add', '.', 'INVALID_FIELD_PATH'],
    ['add', 'evidence_report..commands_run', 'INVALID_FIELD_PATH'],
  ])('%s %j → %s', (verb, field, code) => {
    const { outer, home, id } = setup();
    const before = snapshot(outer);
    const r = run(home, ['contract', verb, field, 'x', '--draft-id', id, '--json']);
    expect([r.code, r.json.code]).toEqual([2, code]);
    expect(snapshot(outer)).toEqual(before);
  });

  it.each([
    ['[1,2]', 'PATCH_NOT_OBJECT'],
    ['"str"', 'PATCH_NOT_OBJECT'],
    ['{"a":', 'INVALID_JSON'],
    ["{'a':1}", 'INVALID_JSON'],
    ['{"a":1,}', 'INVALID_JSON'],
    ['NaN', 'INVALID_JSON'],
  ])('fill patch %j → %s, exit 2', (patch, code) => {
    const { outer, home, id } = setup();
    const before = snapshot(outer);
    const r = run(home, ['contract', 'fill', '--json', patch, '--draft-id', id]);
    expect([r.code, r.json.code]).toEqual([2, code]);
    noStack(r.stderr);
    expect(snapshot(outer)).toEqual(before);
  });

  it('a 200 KB value is stored intact (stdin patch), and a 200 KB broken patch is one INVALID_JSON line', () => {
    const { outer, home, id } = setup();
    const big = `${'é'.repeat(1000)}${'x'.repeat(200_000)}`;
    const ok = run(home, ['contract', 'fill', '--json-file', '-', '--draft-id', id], {
      input: JSON.stringify({ report_prose: big }),
    });
    expect(ok.code, ok.stderr).toBe(0);
    expect(readDraftJson(home, id).report_prose).toBe(big);
    expect(readFileSync(draftPathOf(home, id), 'utf8')).toContain('éé');
    const huge = 'y'.repeat(120_000);
    expect(run(home, ['contract', 'add', 'evidence_report.verbatim_outputs', huge, '--draft-id', id]).code).toBe(0);
    expect(readDraftJson(home, id).evidence_report.verbatim_outputs).toEqual([huge]);
    const before = snapshot(outer);
    const bad = run(home, ['contract', 'fill', '--json-file', '-', '--draft-id', id], {
      input: `{"report_prose":"${'z'.repeat(200_000)}`,
    });
    expect([bad.code, bad.json.code]).toEqual([2, 'INVALID_JSON']);
    expect(bad.stdout.length).toBeLessThan(2000);
    expect(snapshot(outer)).toEqual(before);
  });

  it('__proto__ / constructor paths are own keys: refused by the vocabulary at the root, stored inside open objects', () => {
    const { home, id } = setup();
    const root = run(home, ['contract', 'set', '__proto__.polluted', 'yes', '--draft-id', id, '--json']);
    expect([root.code, root.json.codes]).toEqual([1, ['UNKNOWN_FIELD']]);
    expect(run(home, ['contract', 'set', 'constructor.prototype', 'x', '--draft-id', id, '--json']).json.codes).toEqual(
      ['UNKNOWN_FIELD'],
    );
    expect(run(home, ['contract', 'set', 'approval_request.__proto__.x', '1', '--draft-id', id]).code).toBe(0);
    expect(
      run(home, ['contract', 'fill', '--draft-id', id, '--json', '{"memory_delta":{"__proto__":{"y":2}}}']).code,
    ).toBe(0);
    const text = readFileSync(draftPathOf(home, id), 'utf8');
    expect(JSON.parse(text).approval_request).toEqual(JSON.parse('{"__proto__":{"x":1}}'));
    expect(text).toContain('"__proto__": {\n      "y": 2');
    expect(run(home, ['contract', 'view', '--draft-id', id, '--field', 'approval_request.__proto__.x']).stdout).toBe(
      '1\n',
    );
  });

  it('a relative HANDOFF_HOME is resolved against the cwd; values with newlines and unicode survive', () => {
    const outer = tempHome();
    const r = run(undefined, ['contract', 'init', '--json'], { cwd: outer, env: { HANDOFF_HOME: 'rel/home' } });
    expect(r.code).toBe(0);
    const id = r.json.draft_id;
    const v = 'line1\nline2 ☃ "q"';
    expect(
      run(undefined, ['contract', 'set', 'report_prose', v, '--draft-id', id], {
        cwd: outer,
        env: { HANDOFF_HOME: 'rel/home' },
      }).code,
    ).toBe(0);
    expect(readDraftJson(join(outer, 'rel', 'home'), id).report_prose).toBe(v);
  });

  it('a draft file holding 100 KB of garbage is DRAFT_UNREADABLE in one line', () => {
    const { outer, home, id } = setup();
    writeFileSync(draftPathOf(home, id), `${'{'.repeat(100_000)}`);
    const before = snapshot(outer);
    const r = run(home, ['contract', 'add', 'evidence_report.commands_run', 'x', '--draft-id', id, '--json']);
    expect([r.code, r.json.code]).toEqual([3, 'DRAFT_UNREADABLE']);
    noStack(r.stderr);
    expect(snapshot(outer)).toEqual(before);
  });
});
