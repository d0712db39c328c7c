/**
 * A JSON error in an input names its line and column and never quotes the input (Node's own
 * JSON.parse message does), so a message about a file never carries the file's content.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, snapshot, tempHome } from '../helpers/cli.js';
import { initDraft } from '../helpers/drafts.js';
import { expectCleanFailure, runJson } from '../helpers/store-cli.js';

const SECRET = 'hunter2-TOPSECRET';
/** Secret-looking content that is not JSON, the error on line 3 column 15. */
const SHADOW = `{\n  "user": "root",\n  "password": ${SECRET},\n  "note": "x"\n}\n`;

const quotesNothing = (text: string): void => {
  expect(text).not.toContain('hunter2');
  expect(text).not.toContain('TOPSECRET');
  expect(text).not.toContain('root');
};

describe('JSON errors name line and column, never the content', () => {
  it('fill --json-file of a secret-looking file: INVALID_JSON at line 3, column 15, nothing quoted, nothing written', () => {
    const home = tempHome();
    const id = initDraft(home);
    const file = join(home, 'shadow');
    writeFileSync(file, SHADOW);
    const before = snapshot(home);
    for (const json of [true, false]) {
      const r = run(home, ['contract', 'fill', '--draft-id', id, '--json-file', file]);
      expectCleanFailure(r, 2, 'INVALID_JSON');
      expect(r.json.error).toMatch(/line 3, column 15/);
      quotesNothing(r.stdout + r.stderr);
      if (!json) break;
    }
    const stdin = run(home, ['contract', 'fill', '--draft-id', id, '--json-file', '-'], { input: SHADOW });
    expectCleanFailure(stdin, 2, 'INVALID_JSON');
    quotesNothing(stdin.stdout + stdin.stderr);
    expect(snapshot(home)).toEqual(before);
  });

  it('validate --file, human mode too: the position only', () => {
    const home = tempHome();
    const file = join(home, 'shadow');
    writeFileSync(file, SHADOW);
    const r = run(home, ['contract', 'validate', '--file', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^Error: .*line 3, column 15.*\[INVALID_JSON\]\n$/);
    quotesNothing(r.stderr);
  });

  it.each([
    ['unexpected end of input', '{"a": [1, 2', /unexpected end of input at line 1, column 12/],
    ['a trailing comma', '{"a": 1,\n}', /unexpected character at line 2, column 1/],
    ['a control character in a string', '{"a": "x\ty"}', /control character .* at line 1, column 9/],
    ['an invalid escape', '["\\q"]', /invalid escape .* at line 1, column 3/],
    ['empty input', '', /unexpected end of input at line 1, column 1/],
  ])('%s is located', (_what, text, expected) => {
    const home = tempHome();
    const r = run(home, ['contract', 'validate', '--file', '-', '--json'], { input: text });
    expectCleanFailure(r, 2, 'INVALID_JSON');
    expect(r.json.error).toMatch(expected);
  });

  it('an overflowing number in a file is named by the file, not quoted', () => {
    const home = tempHome();
    const id = initDraft(home);
    const file = join(home, 'patch.json');
    writeFileSync(file, `{"report_prose": "${SECRET}", "n": 1e400}`);
    const r = run(home, ['contract', 'fill', '--draft-id', id, '--json-file', file]);
    expectCleanFailure(r, 2, 'VALUE_NOT_REPRESENTABLE');
    quotesNothing(r.stdout);
  });

  it('a hand-edited draft that is not JSON: DRAFT_UNREADABLE names the position, not the content', () => {
    const home = tempHome();
    const id = initDraft(home);
    mkdirSync(join(home, 'drafts'), { recursive: true });
    writeFileSync(join(home, 'drafts', `${id}.json`), SHADOW);
    const r = runJson(home, ['contract', 'view', '--draft-id', id]);
    expectCleanFailure(r, 3, 'DRAFT_UNREADABLE');
    expect(r.json.error).toMatch(/line 3, column 15/);
    quotesNothing(r.stdout);
  });

  it('hook JSON on stdin that is not JSON: the gate fails open (exit 1) without quoting it', () => {
    const home = tempHome();
    const r = run(home, ['contract', 'gate'], { input: SHADOW });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/line 3, column 15/);
    quotesNothing(r.stderr);
  });
});
