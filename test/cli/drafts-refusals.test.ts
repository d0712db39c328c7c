/**
 * The refusal catalogue: every row → its code, its exit code, one line (human) or one
 * JSON object (--json, fill), and nothing written: the whole HANDOFF_HOME is byte- and mtime-identical afterwards.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { run, tempHome } from '../helpers/cli.js';
import { draftPathOf, expectOneLineError, initDraft, runUnchanged } from '../helpers/drafts.js';

let home: string;
let outside: string;
let D: string;
const UNKNOWN = 'a0123456789abcdef.0123456789ab';
const BROKEN = 'a0123456789abcdef.bbbbbb';

beforeAll(() => {
  home = tempHome();
  D = initDraft(home);
  writeFileSync(draftPathOf(home, BROKEN), '{"truncated":');
  mkdirSync(join(home, 'adir'));
  writeFileSync(join(home, 'open.json'), '{');
  writeFileSync(join(home, 'array.json'), '[1]');
  writeFileSync(join(home, 'huge.json'), '{"a":1e400}');
  // Outside HANDOFF_HOME: snapshot() reads every file it finds, and reading a FIFO would block.
  outside = tempHome();
  spawnSync('mkfifo', [join(outside, 'fifo')]);
});

type Row = [string, () => string[], string, number];

const rows: Row[] = [
  ['unknown verb', () => ['contract', 'nosuch'], 'USAGE', 2],
  ['unknown flag', () => ['contract', 'set', 'a', 'b', '--bogus', '--draft-id', D], 'USAGE', 2],
  ['missing positional', () => ['contract', 'set', 'report_prose', '--draft-id', D], 'USAGE', 2],
  ['extra positional', () => ['contract', 'add', 'a', 'b', 'c', '--draft-id', D], 'USAGE', 2],
  ['fill with no input', () => ['contract', 'fill', '--draft-id', D], 'USAGE', 2],
  [
    'fill with both inputs',
    () => ['contract', 'fill', '--json', '{}', '--json-file', 'x', '--draft-id', D],
    'USAGE',
    2,
  ],
  ['validate --file with --draft-id', () => ['contract', 'validate', '--file', 'x', '--draft-id', D], 'USAGE', 2],
  [
    'validate --file with --agent-id',
    () => ['contract', 'validate', '--file', 'x', '--agent-id', D.split('.')[0]],
    'USAGE',
    2,
  ],
  [
    'set: bad --draft-id',
    () => ['contract', 'set', 'report_prose', 'x', '--draft-id', 'a/../x'],
    'INVALID_DRAFT_ID',
    2,
  ],
  ['add: empty --draft-id', () => ['contract', 'add', 'x', 'y', '--draft-id', ''], 'INVALID_DRAFT_ID', 2],
  [
    'fill: upper-case --draft-id',
    () => ['contract', 'fill', '--json', '{}', '--draft-id', D.toUpperCase()],
    'INVALID_DRAFT_ID',
    2,
  ],
  ['view: trailing newline', () => ['contract', 'view', '--draft-id', `${D}\n`], 'INVALID_DRAFT_ID', 2],
  ['validate: spaces', () => ['contract', 'validate', '--draft-id', ` ${D}`], 'INVALID_DRAFT_ID', 2],
  ['init: bad --draft-id', () => ['contract', 'init', '--draft-id', '..'], 'INVALID_DRAFT_ID', 2],
  ['set: glob --agent-id', () => ['contract', 'set', 'report_prose', 'x', '--agent-id', 'a8*'], 'INVALID_AGENT_ID', 2],
  ['view: short --agent-id', () => ['contract', 'view', '--agent-id', 'a0123'], 'INVALID_AGENT_ID', 2],
  ['init: bad --agent-id', () => ['contract', 'init', '--agent-id', 'A0123456789abcdef'], 'INVALID_AGENT_ID', 2],
  [
    'mismatch',
    () => ['contract', 'add', 'x', 'y', '--draft-id', D, '--agent-id', 'affffffffffffffff'],
    'DRAFT_ID_AGENT_MISMATCH',
    2,
  ],
  [
    'init mismatch',
    () => ['contract', 'init', '--draft-id', UNKNOWN, '--agent-id', 'affffffffffffffff'],
    'DRAFT_ID_AGENT_MISMATCH',
    2,
  ],
  ['set: a..b', () => ['contract', 'set', 'a..b', 'x', '--draft-id', D], 'INVALID_FIELD_PATH', 2],
  ['add: empty FIELD', () => ['contract', 'add', '', 'x', '--draft-id', D], 'INVALID_FIELD_PATH', 2],
  ['set: trailing dot', () => ['contract', 'set', 'agent_status.', 'x', '--draft-id', D], 'INVALID_FIELD_PATH', 2],
  ['view --field .x', () => ['contract', 'view', '--field', '.x', '--draft-id', D], 'INVALID_FIELD_PATH', 2],
  ['set 1e400', () => ['contract', 'set', 'report_prose', '1e400', '--draft-id', D], 'VALUE_NOT_REPRESENTABLE', 2],
  [
    'add [1e400]',
    () => ['contract', 'add', 'evidence_report.key_outputs', '[1e400]', '--draft-id', D],
    'VALUE_NOT_REPRESENTABLE',
    2,
  ],
  [
    'fill 1e400',
    () => ['contract', 'fill', '--json', '{"a":{"b":1e400}}', '--draft-id', D],
    'VALUE_NOT_REPRESENTABLE',
    2,
  ],
  [
    'validate --file 1e400',
    () => ['contract', 'validate', '--file', join(home, 'huge.json')],
    'VALUE_NOT_REPRESENTABLE',
    2,
  ],
  ['fill broken JSON', () => ['contract', 'fill', '--json', '{', '--draft-id', D], 'INVALID_JSON', 2],
  ['fill empty patch', () => ['contract', 'fill', '--json', '', '--draft-id', D], 'INVALID_JSON', 2],
  ['validate --file broken', () => ['contract', 'validate', '--file', join(home, 'open.json')], 'INVALID_JSON', 2],
  ['fill array patch', () => ['contract', 'fill', '--json', '[1]', '--draft-id', D], 'PATCH_NOT_OBJECT', 2],
  ['fill null patch', () => ['contract', 'fill', '--json', 'null', '--draft-id', D], 'PATCH_NOT_OBJECT', 2],
  [
    'fill --json-file array',
    () => ['contract', 'fill', '--json-file', join(home, 'array.json'), '--draft-id', D],
    'PATCH_NOT_OBJECT',
    2,
  ],
  [
    'fill --json-file missing',
    () => ['contract', 'fill', '--json-file', join(home, 'nope.json'), '--draft-id', D],
    'UNREADABLE_INPUT',
    2,
  ],
  ['validate --file missing', () => ['contract', 'validate', '--file', join(home, 'nope.json')], 'UNREADABLE_INPUT', 2],
  [
    'fill --json-file dir',
    () => ['contract', 'fill', '--json-file', join(home, 'adir'), '--draft-id', D],
    'INPUT_NOT_REGULAR',
    2,
  ],
  ['validate --file FIFO', () => ['contract', 'validate', '--file', join(outside, 'fifo')], 'INPUT_NOT_REGULAR', 2],
  ['validate --file /dev/null', () => ['contract', 'validate', '--file', '/dev/null'], 'INPUT_NOT_REGULAR', 2],
  ['set: unknown id', () => ['contract', 'set', 'report_prose', 'x', '--draft-id', UNKNOWN], 'DRAFT_NOT_FOUND', 3],
  [
    'add: unknown id',
    () => ['contract', 'add', 'evidence_report.commands_run', 'x', '--draft-id', UNKNOWN],
    'DRAFT_NOT_FOUND',
    3,
  ],
  ['fill: unknown id', () => ['contract', 'fill', '--json', '{}', '--draft-id', UNKNOWN], 'DRAFT_NOT_FOUND', 3],
  ['view: unknown id', () => ['contract', 'view', '--draft-id', UNKNOWN], 'DRAFT_NOT_FOUND', 3],
  ['validate: unknown id', () => ['contract', 'validate', '--draft-id', UNKNOWN], 'DRAFT_NOT_FOUND', 3],
  [
    'set: unknown agent',
    () => ['contract', 'set', 'report_prose', 'x', '--agent-id', 'affffffffffffffff'],
    'DRAFT_NOT_FOUND',
    3,
  ],
  ['set: unreadable', () => ['contract', 'set', 'report_prose', 'x', '--draft-id', BROKEN], 'DRAFT_UNREADABLE', 3],
  [
    'add: unreadable',
    () => ['contract', 'add', 'evidence_report.commands_run', 'x', '--draft-id', BROKEN],
    'DRAFT_UNREADABLE',
    3,
  ],
  ['fill: unreadable', () => ['contract', 'fill', '--json', '{}', '--draft-id', BROKEN], 'DRAFT_UNREADABLE', 3],
  ['view: unreadable', () => ['contract', 'view', '--draft-id', BROKEN], 'DRAFT_UNREADABLE', 3],
  ['validate: unreadable', () => ['contract', 'validate', '--draft-id', BROKEN], 'DRAFT_UNREADABLE', 3],
  [
    'view --field missing',
    () => ['contract', 'view', '--field', 'evidence_report.no_such_key', '--draft-id', D],
    'FIELD_NOT_FOUND',
    3,
  ],
  ['fill collision', () => ['contract', 'fill', '--json', '{"agent_status":{"agent_id":[1]}}', '--draft-id', D], '', 1],
  ['add: not a list', () => ['contract', 'add', 'agent_status.next_action', 'x', '--draft-id', D], 'NOT_A_LIST', 1],
  [
    'set: path not object',
    () => ['contract', 'set', 'agent_status.pending_steps.0', 'x', '--draft-id', D],
    'PATH_NOT_OBJECT',
    1,
  ],
  [
    'add: path not object',
    () => ['contract', 'add', 'agent_status.agent_id.x', 'x', '--draft-id', D],
    'PATH_NOT_OBJECT',
    1,
  ],
  ['init: exists', () => ['contract', 'init', '--draft-id', D], 'DRAFT_EXISTS', 1],
];

describe('refusals: code, exit, nothing written', () => {
  it.each(rows)('%s', (_name, args, code, exit) => {
    const a = args();
    const isFill = a[1] === 'fill';
    const j = runUnchanged(home, isFill ? a : [...a, '--json']);
    expect(j.code, j.stderr).toBe(exit);
    expect(j.stdout.split('\n')).toHaveLength(2);
    if (code === '') {
      expect(j.json).toMatchObject({ status: 'rejected', draft_id: D, codes: ['FIELD_TYPE', 'AGENT_ID_FORMAT'] });
      return;
    }
    expect(j.json).toMatchObject({ status: exit === 1 ? 'rejected' : 'error', code });
    expect(typeof j.json.error).toBe('string');
    expect(j.stderr).toBe('');
    if (!isFill) {
      const h = runUnchanged(home, a);
      expect([h.code, h.stdout]).toEqual([exit, '']);
      expectOneLineError(h);
    }
  });

  it('a populated-list collision is refused whole', () => {
    run(home, ['contract', 'add', 'agent_status.pending_steps', 's1', '--draft-id', D]);
    const r = runUnchanged(home, [
      'contract',
      'fill',
      '--json',
      '{"agent_status":{"pending_steps":[]},"report_prose":"x"}',
      '--draft-id',
      D,
    ]);
    expect(r.code).toBe(1);
    expect(r.json.code).toBe('FILL_LIST_COLLISION');
    expect(r.json.collisions).toEqual([
      { path: 'agent_status.pending_steps', existing: 1, incoming: 0, incoming_type: 'array' },
    ]);
  });
});

describe('precedence', () => {
  it('ids before FIELD before VALUE, all before any file access', () => {
    expect(runUnchanged(home, ['contract', 'set', 'a..b', '1e400', '--draft-id', 'bad', '--json']).json.code).toBe(
      'INVALID_DRAFT_ID',
    );
    expect(runUnchanged(home, ['contract', 'set', 'a..b', '1e400', '--draft-id', UNKNOWN, '--json']).json.code).toBe(
      'INVALID_FIELD_PATH',
    );
    expect(runUnchanged(home, ['contract', 'set', 'x', '1e400', '--draft-id', UNKNOWN, '--json']).json.code).toBe(
      'VALUE_NOT_REPRESENTABLE',
    );
    expect(runUnchanged(home, ['contract', 'fill', '--json', '{', '--draft-id', UNKNOWN]).json.code).toBe(
      'INVALID_JSON',
    );
    expect(runUnchanged(home, ['contract', 'fill', '--json', '{', '--draft-id', 'x']).json.code).toBe(
      'INVALID_DRAFT_ID',
    );
  });

  it('loading (3) before the write itself (1)', () => {
    expect(
      runUnchanged(home, ['contract', 'add', 'agent_status.next_action', 'x', '--draft-id', BROKEN, '--json']).json
        .code,
    ).toBe('DRAFT_UNREADABLE');
  });

  it('a refused call in an empty data root leaves no folder behind', () => {
    const fresh = tempHome();
    const r = runUnchanged(fresh, ['contract', 'set', 'report_prose', 'x', '--draft-id', UNKNOWN, '--json']);
    expect(r.json.code).toBe('DRAFT_NOT_FOUND');
    const noRoot = join(fresh, 'not', 'yet');
    const r2 = run(noRoot, ['contract', 'add', 'x', 'y', '--draft-id', UNKNOWN, '--json'], { cwd: fresh });
    expect(r2.json.code).toBe('DRAFT_NOT_FOUND');
    expect(runUnchanged(fresh, ['contract', 'view', '--json']).json.code).toBe('DRAFT_NOT_FOUND');
  });
});
