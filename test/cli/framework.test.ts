import { openSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BIN, run, runAsync, tempHome } from '../helpers/cli.js';

/** Every failure is one line on stderr in human mode, and one JSON object (with nothing on stderr) under --json. */
describe('the error model of the CLI framework', () => {
  it('a parser error is USAGE exit 2: the first sentence of the problem and the usage line, on one line', () => {
    const r = run(tempHome(), ['contract', 'set', 'a', 'b', '--draft-id', '--json']);
    expect(r.code).toBe(2);
    expect(r.json).toMatchObject({ status: 'error', code: 'USAGE' });
    expect(r.json.error).toMatch(
      /^flag --draft-id needs a value; a value that starts with - is written --draft-id=VALUE\. Usage: handoff contract set FIELD VALUE/,
    );
    expect(r.json.error).not.toContain('\n');
    expect(r.stderr).toBe('');
  });

  it('a missing positional argument names it, with the usage line, on one stderr line', () => {
    const r = run(tempHome(), ['contract', 'set', 'work_phase']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'Error: missing argument VALUE. Usage: handoff contract set FIELD VALUE [--draft-id ID] [--agent-id ID] [--explain] [--json] [USAGE]\n',
    );
  });

  it('a message that quotes multi-line input stays on one line', () => {
    const r = run(tempHome(), ['contract', 'validate', '--file', '-'], { input: 'nope\nmore' });
    expect(r.code).toBe(2);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^Error: stdin is not valid JSON: /);
  });

  it('a hint follows its message on the same line, never run into it', () => {
    const home = tempHome();
    run(home, ['brief', 'add', 'known', '--workspace', 'w']);
    const r = run(home, ['brief', 'show', 'nosuch', '--workspace', 'w']);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(
      'Error: no brief "nosuch" in workspace "w"; see handoff brief list, or create it with handoff brief add [BRIEF_NOT_FOUND]\n',
    );
  });

  it('stdin that cannot be read is UNREADABLE_INPUT (exit 2), not an empty input', () => {
    const home = tempHome();
    const r = spawnSync(process.execPath, [BIN, 'contract', 'validate', '--file', '-', '--json'], {
      env: { ...process.env, HANDOFF_HOME: home },
      stdio: [openSync(home, 'r'), 'pipe', 'pipe'],
      encoding: 'utf8',
    });
    expect(r.status).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'error', code: 'UNREADABLE_INPUT' });
    expect(r.stderr).toBe('');
  });

  it('large piped stdin arrives whole (no chunk dropped on a non-blocking pipe)', async () => {
    const home = tempHome();
    const envelope = {
      agent_status: { agent_state: 'IN_PROGRESS', agent_id: 'a0123456789abcdef', pending_steps: [], next_action: 'x' },
      evidence_report: {
        patterns_checked: [],
        files_checked: [],
        commands_run: [],
        key_outputs: [],
        verbatim_outputs: [],
        cross_layer_impacts: [],
        open_gaps: [],
      },
      report_prose: 'y'.repeat(600_000),
    };
    const input = JSON.stringify(envelope);
    const results = await Promise.all(
      Array.from({ length: 6 }, () => runAsync(home, ['contract', 'validate', '--file', '-', '--json'], { input })),
    );
    for (const r of results) expect(r.json).toEqual({ status: 'ok', source: '-' });
  });

  it('an unknown topic or verb is USAGE exit 2 in both modes', () => {
    const home = tempHome();
    expect(run(home, ['nosuch']).code).toBe(2);
    const j = run(home, ['contract', 'nosuch', '--json']);
    expect(j.code).toBe(2);
    expect(j.json).toMatchObject({ status: 'error', code: 'USAGE' });
  });
});
