/**
 * File inputs are read as UTF-8 strictly: a goal file or an
 * approval content file that is not valid UTF-8 is refused (UNREADABLE_INPUT, exit 2, naming the file), never stored
 * with U+FFFD in place of its bytes, and nothing is written.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, snapshot, tempHome } from '../helpers/cli.js';

const INVALID = Buffer.from([0x66, 0x69, 0x78, 0x20, 0xff, 0xfe, 0x20, 0xc3, 0x28, 0x0a]); // "fix \xff\xfe \xc3(\n"

function badFile(home: string, name: string): string {
  const p = join(home, name);
  writeFileSync(p, INVALID);
  return p;
}

describe('strict UTF-8 file inputs', () => {
  it('contract dispatch --goal-file: UNREADABLE_INPUT exit 2, names the file, nothing written (JSON and human)', () => {
    const home = tempHome();
    const file = badFile(home, 'goal.md');
    const before = snapshot(home);
    const r = run(home, ['contract', 'dispatch', '--workspace', 'ws', '--goal-file', file, '--json']);
    expect(r.code).toBe(2);
    expect(r.json).toMatchObject({ status: 'error', code: 'UNREADABLE_INPUT' });
    expect(r.json.error).toContain(JSON.stringify(file));
    expect(r.json.error).toMatch(/not valid UTF-8/);
    const human = run(home, ['contract', 'dispatch', '--workspace', 'ws', '--goal-file', file]);
    expect(human.code).toBe(2);
    expect(human.stdout).toBe('');
    expect(human.stderr).toMatch(/^Error: .*not valid UTF-8/);
    expect(snapshot(home)).toEqual(before);
  });

  it('contract dispatch --goal-file: valid multibyte UTF-8 is still accepted as is', () => {
    const home = tempHome();
    const file = join(home, 'goal.md');
    writeFileSync(file, 'Réparer le flux — vite\n');
    const r = run(home, ['contract', 'dispatch', '--workspace', 'ws', '--goal-file', file, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.goal).toBe('Réparer le flux — vite');
  });

  it('approval request --content-file: UNREADABLE_INPUT exit 2, names the file, nothing written', () => {
    const home = tempHome();
    const file = badFile(home, 'content.txt');
    const before = snapshot(home);
    const r = run(home, ['approval', 'request', '--workspace', 'ws', '--content-file', file, '--json']);
    expect(r.code).toBe(2);
    expect(r.json).toMatchObject({ status: 'error', code: 'UNREADABLE_INPUT' });
    expect(r.json.error).toContain(JSON.stringify(file));
    expect(r.json.error).toMatch(/not valid UTF-8/);
    expect(snapshot(home)).toEqual(before);
  });
});
