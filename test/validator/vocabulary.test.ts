/** The vocabulary's sizes, homes, patterns, the initial envelope, and the value helpers. */
import { describe, expect, it } from 'vitest';
import {
  AGENT_ID_RE,
  AGENT_STATUS_KEYS,
  AGENT_WRITABLE_ROOT_KEYS,
  CLOSING_STATES,
  COMMIT_RE,
  DRAFT_ID_RE,
  EVIDENCE_LISTS,
  EVIDENCE_REPORT_KEYS,
  foldType,
  HOMES,
  initialEnvelope,
  isBlank,
  isNonEmptyString,
  isTruthy,
  jsonTypeName,
  normalizeState,
  RECEIPT_ID_RE,
  ROOT_KEYS,
  ROW_STATES,
  SYSTEM_ROOT_KEYS,
  tokenMatch,
} from '../../src/envelope/vocabulary.js';
import { validateEnvelope } from '../../src/validator/index.js';

describe('vocabulary', () => {
  it('has the documented sizes', () => {
    expect(AGENT_WRITABLE_ROOT_KEYS).toHaveLength(14);
    expect(SYSTEM_ROOT_KEYS).toHaveLength(17);
    expect(new Set(ROOT_KEYS).size).toBe(31);
    expect(AGENT_STATUS_KEYS).toHaveLength(4);
    expect(new Set(EVIDENCE_REPORT_KEYS).size).toBe(15);
    expect(EVIDENCE_LISTS).toEqual([
      'patterns_checked',
      'files_checked',
      'commands_run',
      'key_outputs',
      'verbatim_outputs',
      'cross_layer_impacts',
      'open_gaps',
    ]);
    expect(ROW_STATES).toHaveLength(7);
    expect(CLOSING_STATES).toEqual(['APPROVAL_REQUEST', 'COMPLETE', 'BLOCKED', 'NEEDS_INPUT', 'NEEDS_VERIFICATION']);
  });

  it('homes follow the documented homes', () => {
    expect(HOMES.get('agent_state')).toBe('root');
    expect(HOMES.get('_contract_tag')).toBe('root');
    expect(HOMES.get('next_action')).toBe('agent_status');
    expect(HOMES.get('verification')).toBe('evidence_report');
    expect(HOMES.get('COMMANDS_RUN')).toBeUndefined();
    expect(HOMES.get('plan_status')).toBeUndefined();
  });

  it('patterns', () => {
    expect(AGENT_ID_RE.test('a0123456789abcdef')).toBe(true);
    expect(AGENT_ID_RE.test('a0123456789abcdef\n')).toBe(false);
    expect(DRAFT_ID_RE.test('a0123456789abcdef.abc123')).toBe(true);
    expect(DRAFT_ID_RE.test('a0123456789abcdef.abc12')).toBe(false);
    expect(RECEIPT_ID_RE.test('R-0123456789abcdef')).toBe(true);
    expect(RECEIPT_ID_RE.test('R-0123456789abcdeF')).toBe(false);
    expect(COMMIT_RE.test('abcdef0')).toBe(true);
  });

  it('initialEnvelope: exact keys in order, valid as it stands', () => {
    const e = initialEnvelope('a0123456789abcdef');
    expect(JSON.stringify(e)).toBe(
      '{"agent_status":{"agent_state":"IN_PROGRESS","agent_id":"a0123456789abcdef","pending_steps":[],"next_action":"pending"},' +
        '"evidence_report":{"patterns_checked":[],"files_checked":[],"commands_run":[],"key_outputs":[],"verbatim_outputs":[],"cross_layer_impacts":[],"open_gaps":[]},' +
        '"consolidation_report":null,"approval_request":null,"failure_report":null,"memory_delta":null,"work_phase":null}',
    );
    expect(validateEnvelope(e).ok).toBe(true);
    expect(initialEnvelope('a0123456789abcdef')).not.toBe(e);
  });
});

describe('value semantics', () => {
  it('isBlank / isNonEmptyString', () => {
    for (const v of [undefined, null, '', ' \n', '\ufeff']) expect(isBlank(v)).toBe(true);
    for (const v of [0, false, [], {}, '\u001c', 'x']) expect(isBlank(v)).toBe(false);
    expect(isNonEmptyString(' x ')).toBe(true);
    expect(isNonEmptyString(5)).toBe(false);
  });

  it('isTruthy is not JavaScript truthiness', () => {
    for (const v of [undefined, null, false, 0, -0, '', [], {}]) expect(isTruthy(v)).toBe(false);
    for (const v of ['false', '0', ' ', [0], { a: null }, 1, true]) expect(isTruthy(v)).toBe(true);
  });

  it('jsonTypeName', () => {
    expect([{}, [], 'x', 1, true, null].map(jsonTypeName)).toEqual([
      'object',
      'array',
      'string',
      'number',
      'boolean',
      'null',
    ]);
  });

  it.each([
    ['complete.', 'COMPLETE'],
    ['  blocked;,. ', 'BLOCKED'],
    ['\ufeffCOMPLETE', 'COMPLETE'],
    ['COMPLETE .', 'COMPLETE '],
    ['in progress', 'IN PROGRESS'],
  ])('normalizeState(%j) = %j', (input, output) => {
    expect(normalizeState(input)).toBe(output);
  });

  it.each([
    ['Self Review', 'self_review'],
    ['self-review', 'self_review'],
    ['self__review', 'self_review'],
    ['-self-review-', 'self_review'],
    ['Self\u00a0Review', 'self_review'],
    ['self\ufeffreview', 'self_review'],
    [' COMMAND ', 'command'],
    [' Dry--Run ', 'dry_run'],
    ['_-_', ''],
    ['   ', ''],
    ['', ''],
    ['no-ne', 'no_ne'],
    ['n o n e', 'n_o_n_e'],
  ])('foldType(%j) = %j', (input, output) => {
    expect(foldType(input)).toBe(output);
  });

  it('foldType: absent/null claim nothing; other types are unknown words', () => {
    expect(foldType(undefined)).toBe('');
    expect(foldType(null)).toBe('');
    for (const v of [5, true, ['none'], {}]) expect(foldType(v)).toBeNull();
  });

  it('tokenMatch', () => {
    const phases = new Set(['planning', 'verifying']);
    expect(tokenMatch('PLANNING', phases)).toBe(true);
    expect(tokenMatch('  Verifying\n', phases)).toBe(true);
    expect(tokenMatch('planning.', phases)).toBe(false);
    expect(tokenMatch(['planning'], phases)).toBe(false);
  });
});
