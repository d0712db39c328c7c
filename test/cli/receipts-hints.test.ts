/** Evidence run says how to fix a one-string command that could not start, and a bad --cwd. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, snapshot, tempHome } from '../helpers/cli.js';
import { newDraft } from '../helpers/receipts-cli.js';

const evRun = (home: string, args: string[]) => run(home, ['evidence', 'run', '--workspace', 'ws', ...args]);

describe('evidence run hints', () => {
  it('one argument with a space that cannot start: the receipt is recorded (127) and the notice says to split it or pass --shell', () => {
    const home = tempHome();
    const d = newDraft(home);
    const r = evRun(home, ['--draft-id', d, '--', 'no-such-cmd-for-handoff --flag']);
    expect(r.code).toBe(127);
    expect(r.stderr).toContain('[NOT STARTED]');
    expect(r.stderr).toContain('-- no-such-cmd-for-handoff --flag');
    expect(r.stderr).toContain('--shell');
    const j = evRun(home, ['--draft-id', d, '--json', '--', 'no-such-cmd-for-handoff --flag']);
    expect([j.code, j.json.status, j.json.receipt.outcome]).toEqual([127, 'ok', 'unproven']);
    expect(j.stderr).toContain('--shell');
  });

  it('no hint for a word without a space, nor for several arguments', () => {
    const home = tempHome();
    const d = newDraft(home);
    const one = evRun(home, ['--draft-id', d, '--', 'no-such-cmd-for-handoff']);
    expect(one.code).toBe(127);
    expect(one.stderr).not.toContain('--shell');
    const two = evRun(home, ['--draft-id', d, '--', 'no-such-cmd-for-handoff', 'a b']);
    expect(two.code).toBe(127);
    expect(two.stderr).not.toContain('--shell');
  });

  it.each([
    ['a missing directory', (home: string) => join(home, 'no', 'such', 'dir')],
    [
      'a regular file',
      (home: string) => {
        const f = join(home, 'file.txt');
        writeFileSync(f, 'x');
        return f;
      },
    ],
    ['an empty string', () => ''],
  ])('--cwd naming %s: CWD_NOT_FOUND, exit 2, nothing run or written, no "goes after --"', (_what, cwdOf) => {
    const home = tempHome();
    const d = newDraft(home);
    const cwd = cwdOf(home);
    const before = snapshot(home);
    const h = evRun(home, ['--draft-id', d, '--cwd', cwd, '--', 'true']);
    expect(h.code).toBe(2);
    expect(h.stderr).toMatch(/^Error: .*--cwd.* \[CWD_NOT_FOUND\]\n$/);
    expect(h.stderr).not.toContain('goes after --');
    const j = evRun(home, ['--draft-id', d, '--cwd', cwd, '--json', '--', 'true']);
    expect([j.code, j.json.status, j.json.code]).toEqual([2, 'error', 'CWD_NOT_FOUND']);
    expect(snapshot(home)).toEqual(before);
  });
});
