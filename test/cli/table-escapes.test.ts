/** Through the built binary: hostile text never breaks a table or a listing into more lines. */
import { describe, expect, it } from 'vitest';
import { initDraft } from '../helpers/drafts.js';
import { run, tempHome } from '../helpers/cli.js';

const HOSTILE = 'rm -rf\tbuild\nnext line\r\u001b[31mred\\end';
const ESCAPED = 'rm -rf\\tbuild\\nnext line\\r\\u001b[31mred\\\\end';

const noRawControls = (text: string): void => {
  expect(text).not.toMatch(/[\t\r]/);
  expect(text).not.toContain('\u001b');
};

describe('tables escape control characters', () => {
  it('approval list: one line per approval, content escaped', () => {
    const home = tempHome();
    expect(run(home, ['approval', 'request', '--content', HOSTILE, '--workspace', 'ws']).code).toBe(0);
    const r = run(home, ['approval', 'list']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain(ESCAPED);
    noRawControls(r.stdout);
  });

  it('brief show: title, objective and AC descriptions escaped, one line each', () => {
    const home = tempHome();
    const add = run(home, [
      'brief',
      'add',
      'pay',
      '--workspace',
      'ws',
      '--title',
      `T ${HOSTILE}`,
      '--objective',
      `O ${HOSTILE}`,
      '--ac',
      `AC-1=${HOSTILE}`,
    ]);
    expect(add.code, add.stderr).toBe(0);
    const r = run(home, ['brief', 'show', 'pay', '--workspace', 'ws']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[1]).toBe(`Title: T ${ESCAPED}`);
    expect(lines[2]).toBe(`Objective: O ${ESCAPED}`);
    expect(lines[3]).toBe(`  1. AC-1 [0 evidence] ${ESCAPED}`);
    noRawControls(r.stdout);
  });

  it('brief list and evidence list: cells escaped, one line per row', () => {
    const home = tempHome();
    expect(run(home, ['brief', 'add', 'pay', '--workspace', 'ws', '--title', HOSTILE]).code).toBe(0);
    const briefs = run(home, ['brief', 'list', '--workspace', 'ws']);
    expect(briefs.stdout.trimEnd().split('\n')).toHaveLength(3);
    expect(briefs.stdout).toContain(ESCAPED);
    noRawControls(briefs.stdout);
    const ev = run(home, [
      'evidence',
      'add',
      '--brief',
      'pay',
      '--ac',
      'AC-1',
      '--type',
      'text',
      '--text',
      'x',
      '--created-by',
      HOSTILE,
      '--workspace',
      'ws',
    ]);
    expect(ev.code, ev.stderr).toBe(0);
    const list = run(home, ['evidence', 'list', '--brief', 'pay', '--workspace', 'ws']);
    expect(list.stdout.trimEnd().split('\n')).toHaveLength(3);
    expect(list.stdout).toContain(ESCAPED);
    noRawControls(list.stdout);
  });

  it('evidence show: one `key: value` line per field, inline text escaped', () => {
    const home = tempHome();
    expect(run(home, ['brief', 'add', 'pay', '--workspace', 'ws']).code).toBe(0);
    const ev = run(home, [
      'evidence',
      'add',
      '--brief',
      'pay',
      '--ac',
      'AC-1',
      '--type',
      'text',
      '--text',
      HOSTILE,
      '--workspace',
      'ws',
      '--json',
    ]);
    expect(ev.code, ev.stderr).toBe(0);
    const show = run(home, ['evidence', 'show', String(ev.json.evidence.id)]);
    expect(show.code).toBe(0);
    expect(show.stdout.split('\n')).toContain(`text: ${ESCAPED}`);
    noRawControls(show.stdout);
  });

  it('evidence receipts: the command cell is escaped', () => {
    const home = tempHome();
    const id = initDraft(home);
    const ran = run(home, ['evidence', 'run', '--draft-id', id, '--', process.execPath, '-e', '0', 'a\tb']);
    expect(ran.code, ran.stderr).toBe(0);
    const r = run(home, ['evidence', 'receipts', '--draft-id', id]);
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(3);
    noRawControls(r.stdout);
  });
});
