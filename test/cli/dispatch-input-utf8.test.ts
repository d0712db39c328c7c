/**
 * Text inputs are read as UTF-8 strictly: a goal file, an approval content file, a fill or patch --json-file (a path
 * or stdin) and a validate --file that are not valid UTF-8 are refused (INVALID_UTF8, exit 2, naming the input),
 * never read with U+FFFD in place of their bytes, and nothing is written.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, snapshot, tempHome } from '../helpers/cli.js';

const INVALID = Buffer.from([0x66, 0x69, 0x78, 0x20, 0xff, 0xfe, 0x20, 0xc3, 0x28, 0x0a]); // "fix \xff\xfe \xc3(\n"
const D = 'a0123456789abcdef.0123456789ab';
/** A JSON patch whose string holds a byte that is not UTF-8: parsed leniently it would store "\uFFFD". */
const BAD_PATCH = Buffer.concat([Buffer.from('{"report_prose":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]);

function badFile(home: string, name: string, bytes: Buffer = INVALID): string {
  const p = join(home, name);
  writeFileSync(p, bytes);
  return p;
}

describe('strict UTF-8 file inputs', () => {
  it('contract dispatch --goal-file: INVALID_UTF8 exit 2, names the file, nothing written (JSON and human)', () => {
    const home = tempHome();
    const file = badFile(home, 'goal.md');
    const before = snapshot(home);
    const r = run(home, ['contract', 'dispatch', '--workspace', 'ws', '--goal-file', file, '--json']);
    expect(r.code).toBe(2);
    expect(r.json).toMatchObject({ status: 'error', code: 'INVALID_UTF8' });
    expect(r.json.error).toContain(JSON.stringify(file));
    expect(r.json.error).toMatch(/not valid UTF-8/);
    const human = run(home, ['contract', 'dispatch', '--workspace', 'ws', '--goal-file', file]);
    expect(human.code).toBe(2);
    expect(human.stdout).toBe('');
    expect(human.stderr).toMatch(/^Error: .*not valid UTF-8.*\[INVALID_UTF8\]/);
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

  it('approval request --content-file: INVALID_UTF8 exit 2, names the file, nothing written', () => {
    const home = tempHome();
    const file = badFile(home, 'content.txt');
    const before = snapshot(home);
    const r = run(home, ['approval', 'request', '--workspace', 'ws', '--content-file', file, '--json']);
    expect(r.code).toBe(2);
    expect(r.json).toMatchObject({ status: 'error', code: 'INVALID_UTF8' });
    expect(r.json.error).toContain(JSON.stringify(file));
    expect(snapshot(home)).toEqual(before);
  });

  it.each([
    ['fill --json-file PATH', 'fill', true],
    ['patch --json-file PATH', 'patch', true],
    ['fill --json-file - (stdin)', 'fill', false],
  ])('contract %s: INVALID_UTF8 exit 2, the draft unchanged (never stored as U+FFFD)', (_what, verb, fromFile) => {
    const home = tempHome();
    expect(run(home, ['contract', 'init', '--draft-id', D]).code).toBe(0);
    const file = badFile(home, 'patch.json', BAD_PATCH);
    const before = snapshot(home);
    const r = fromFile
      ? run(home, ['contract', verb, '--json-file', file, '--draft-id', D])
      : run(home, ['contract', verb, '--json-file', '-', '--draft-id', D], { input: BAD_PATCH });
    expect(r.code, r.stdout).toBe(2);
    expect(r.json).toMatchObject({ status: 'error', code: 'INVALID_UTF8' });
    expect(r.json.error).toContain(fromFile ? file : 'stdin');
    expect(snapshot(home)).toEqual(before);
  });

  it('contract validate --file: INVALID_UTF8 exit 2', () => {
    const home = tempHome();
    const file = badFile(home, 'envelope.json', BAD_PATCH);
    const r = run(home, ['contract', 'validate', '--file', file, '--json']);
    expect(r.code).toBe(2);
    expect(r.json).toMatchObject({ status: 'error', code: 'INVALID_UTF8' });
  });
});
