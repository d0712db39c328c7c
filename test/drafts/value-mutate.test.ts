import { describe, expect, it } from 'vitest';
import { initialEnvelope } from '../../src/envelope/vocabulary.js';
import { addToList, readField, setField } from '../../src/drafts/mutate.js';
import { parseFieldPath, parseValueArg } from '../../src/drafts/value.js';
import { HandoffError } from '../../src/errors.js';

const ID = 'a0123456789abcdef.0123456789ab';

function codeOf(fn: () => unknown): { code: string; exit: number; data: Record<string, unknown> } | undefined {
  try {
    fn();
  } catch (e) {
    if (e instanceof HandoffError) return { code: e.code, exit: e.exit, data: e.data };
    throw e;
  }
  return undefined;
}

describe('VALUE parsing', () => {
  it.each([
    ['done', 'done'],
    ['BOGUS', 'BOGUS'],
    ['not json {', 'not json {'],
    ['"x" junk', '"x" junk'],
    ['42', 42],
    ['-5', -5],
    ['true', true],
    ['null', null],
    ['"42"', '42'],
    [' "spaced" ', 'spaced'],
    ['["a","b"]', ['a', 'b']],
    ['{"k":"v"}', { k: 'v' }],
    ['NaN', 'NaN'],
    ['Infinity', 'Infinity'],
    ['-Infinity', '-Infinity'],
    ['', ''],
    ['9007199254740993', 9007199254740992],
  ])('%j is stored as %j', (arg, stored) => {
    expect(parseValueArg(arg)).toEqual(stored);
  });

  it.each(['1e400', '[1e400]', '{"a":{"b":-1e999}}'])('%s overflows → VALUE_NOT_REPRESENTABLE, exit 2', (arg) => {
    expect(codeOf(() => parseValueArg(arg))).toMatchObject({ code: 'VALUE_NOT_REPRESENTABLE', exit: 2 });
  });
});

describe('FIELD paths', () => {
  it.each(['', '.', '...', 'a..b', '.a', 'a.', 'evidence_report.'])('%j → INVALID_FIELD_PATH, exit 2', (field) => {
    expect(codeOf(() => parseFieldPath(field))).toMatchObject({ code: 'INVALID_FIELD_PATH', exit: 2 });
  });

  it('splits on dots only; segments are literal (no list indexing, no trimming)', () => {
    expect(parseFieldPath('evidence_report.files_checked[0]')).toEqual(['evidence_report', 'files_checked[0]']);
    expect(parseFieldPath(' a . b ')).toEqual([' a ', ' b ']);
  });
});

describe('set and add', () => {
  const base = initialEnvelope('a0123456789abcdef');

  it('set replaces, appends new keys at the end of their object, and never mutates its input', () => {
    const before = JSON.stringify(base);
    const out = setField(base, ['evidence_report', 'verification'], { result: 'pass' }, ID);
    expect(Object.keys(out.evidence_report as object).at(-1)).toBe('verification');
    expect(JSON.stringify(base)).toBe(before);
    const cleared = setField(
      setField(base, ['evidence_report', 'open_gaps'], ['x'], ID),
      ['evidence_report', 'open_gaps'],
      [],
      ID,
    );
    expect((cleared.evidence_report as any).open_gaps).toEqual([]);
  });

  it('a null intermediate becomes {} in place; an absent one is appended', () => {
    const out = setField(base, ['approval_request', 'exact_content'], 'git push', ID);
    expect(out.approval_request).toEqual({ exact_content: 'git push' });
    expect(Object.keys(out).indexOf('approval_request')).toBe(Object.keys(base).indexOf('approval_request'));
    const deep = setField(base, ['memory_delta', 'x', 'y'], 1, ID);
    expect(deep.memory_delta).toEqual({ x: { y: 1 } });
    const appended = setField(base, ['context_consumption', 'tokens_used'], 5, ID);
    expect(Object.keys(appended).at(-1)).toBe('context_consumption');
  });

  it.each([
    [['agent_status', 'pending_steps', '0'], 'agent_status.pending_steps', 'array'],
    [['agent_status', 'next_action', 'x'], 'agent_status.next_action', 'string'],
  ])('walking through a non-object %j → PATH_NOT_OBJECT naming %s (%s)', (segments, path, type) => {
    expect(codeOf(() => setField(base, segments, 'x', ID))).toEqual({
      code: 'PATH_NOT_OBJECT',
      exit: 1,
      data: { draft_id: ID, path, type },
    });
  });

  it('add: absent or null → [VALUE]; a list grows; an array VALUE is one nested entry', () => {
    expect(addToList(base, ['failure_report'], 'x', ID).failure_report).toEqual(['x']);
    expect(addToList(base, ['user_facing_summary'], 1, ID).user_facing_summary).toEqual([1]);
    const twice = addToList(
      addToList(base, ['evidence_report', 'commands_run'], 'a', ID),
      ['evidence_report', 'commands_run'],
      ['b', 'c'],
      ID,
    );
    expect((twice.evidence_report as any).commands_run).toEqual(['a', ['b', 'c']]);
  });

  it('add to a non-list → NOT_A_LIST naming the path and its JSON type', () => {
    expect(codeOf(() => addToList(base, ['agent_status', 'next_action'], 'x', ID))).toEqual({
      code: 'NOT_A_LIST',
      exit: 1,
      data: { draft_id: ID, path: 'agent_status.next_action', type: 'string' },
    });
    expect(codeOf(() => addToList({ a: {} }, ['a'], 'x', ID))?.data.type).toBe('object');
    expect(codeOf(() => addToList({ a: false }, ['a'], 'x', ID))?.data.type).toBe('boolean');
  });

  it('__proto__, constructor and prototype are ordinary own keys; no prototype is touched', () => {
    const out = setField(base, ['__proto__', 'polluted'], 'yes', ID);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.prototype.hasOwnProperty.call(out, '__proto__')).toBe(true);
    expect(({} as any).polluted).toBeUndefined();
    expect(JSON.parse(JSON.stringify(out)).__proto__).toEqual({ polluted: 'yes' });
    const ctor = addToList(base, ['constructor', 'prototype'], 'x', ID);
    expect(Object.prototype.hasOwnProperty.call(ctor, 'constructor')).toBe(true);
    expect((ctor as any).constructor).toEqual({ prototype: ['x'] });
    expect(typeof Object.prototype.constructor).toBe('function');
    // An absent `constructor` is absent, not Object.prototype.constructor.
    expect(codeOf(() => readField(base, ['constructor']))?.code).toBe('FIELD_NOT_FOUND');
    expect(codeOf(() => addToList(base, ['toString'], 'x', ID))).toBeUndefined();
  });
});

describe('view --field walk', () => {
  const base = initialEnvelope('a0123456789abcdef');
  it('prints present values even when null, [] or {}', () => {
    expect(readField(base, ['work_phase'])).toBeNull();
    expect(readField(base, ['evidence_report', 'open_gaps'])).toEqual([]);
    expect(readField({ a: {} }, ['a'])).toEqual({});
  });
  it.each([
    [['evidence_report', 'no_such_key'], 'no_such_key', 'evidence_report'],
    [['nope'], 'nope', '(root)'],
    [['agent_status', 'pending_steps', '0'], '0', 'agent_status.pending_steps'],
  ])('%j → FIELD_NOT_FOUND (missing %s under %s)', (segments, missing, walked) => {
    expect(codeOf(() => readField(base, segments))).toMatchObject({
      code: 'FIELD_NOT_FOUND',
      exit: 3,
      data: { missing, walked },
    });
  });
});
