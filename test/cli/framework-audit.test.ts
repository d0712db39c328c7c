/**
 * The CLI framework's contract, pinned where a mutation audit found it unguarded: an unexpected exception is
 * INTERNAL exit 70 (one JSON object under --json, one stderr line otherwise), a surplus positional is USAGE, and
 * `--help` after the `--` terminator belongs to the child command, not to the verb.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, run, snapshot, tempHome } from '../helpers/cli.js';
import { freshHome, newDraft, receipt } from '../helpers/receipts-cli.js';

/** Runs the binary with a preload that makes process.cwd() throw a plain Error (not a HandoffError). */
function runCrashing(home: string, args: string[], extraEnv: Record<string, string> = {}) {
  const preload = join(home, 'crash.cjs');
  writeFileSync(preload, 'process.cwd = () => { throw new Error("boom\\nsecond line"); };\n');
  const env: NodeJS.ProcessEnv = { ...process.env, HANDOFF_HOME: home, NO_COLOR: '1', ...extraEnv };
  delete env.HANDOFF_DB;
  delete env.HANDOFF_WORKSPACE;
  if (extraEnv.HANDOFF_DEBUG === undefined) delete env.HANDOFF_DEBUG;
  const r = spawnSync(process.execPath, ['-r', preload, BIN, ...args], {
    env,
    cwd: home,
    input: '',
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('the CLI framework (mutation audit)', () => {
  it('an unexpected exception under --json is INTERNAL exit 70: one JSON line on stdout, nothing on stderr', () => {
    const home = tempHome();
    const r = runCrashing(home, ['contract', 'validate', '--json']);
    expect(r.code).toBe(70);
    expect(r.stdout).toBe('{"status":"error","code":"INTERNAL","error":"internal error: boom second line"}\n');
    expect(r.stderr).toBe('');
  });

  it('an unexpected exception in human mode is exit 70 with one stderr line and no stack (a stack only with HANDOFF_DEBUG=1)', () => {
    const home = tempHome();
    const r = runCrashing(home, ['contract', 'validate']);
    expect(r.code).toBe(70);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('Error: internal error: boom second line\n');
    const debug = runCrashing(home, ['contract', 'validate'], { HANDOFF_DEBUG: '1' });
    expect(debug.code).toBe(70);
    expect(debug.stderr.startsWith('Error: internal error: boom second line\nError: boom\n')).toBe(true);
    expect(debug.stderr).toMatch(/\n\s+at /);
  });

  it('an unexpected exception in the gate (fail-open) is exit 70, never the blocking exit 2', () => {
    const home = tempHome();
    const r = runCrashing(home, ['contract', 'gate', '--json']);
    expect(r.code).toBe(70);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('handoff contract gate: internal error: boom second line\n');
  });

  it('a surplus positional argument is USAGE exit 2 naming it, and nothing is written', () => {
    const home = tempHome();
    const init = run(home, ['contract', 'init', '--json']);
    expect(init.code).toBe(0);
    const before = snapshot(home);
    const r = run(home, ['contract', 'set', 'report_prose', 'x', 'surplus', '--json']);
    expect(r.code).toBe(2);
    expect(r.json).toMatchObject({ status: 'error', code: 'USAGE' });
    expect(r.json.error).toMatch(/^unexpected argument "surplus"\. Usage: handoff contract set FIELD VALUE/);
    expect(r.stderr).toBe('');
    expect(snapshot(home)).toEqual(before);
  });

  it("--help after the -- terminator is the child command's argument: the command runs and is recorded", () => {
    const home = freshHome();
    const d = newDraft(home);
    const { r, receipt: rc } = receipt(home, d, ['printf', '%s|', '--help', '-h']);
    expect(r.code).toBe(0);
    expect(r.json.status).toBe('ok');
    expect(rc).toMatchObject({
      argv: ['printf', '%s|', '--help', '-h'],
      exit_code: 0,
      outcome: 'pass',
      stdout_text: '--help|-h|',
    });
  });
});
