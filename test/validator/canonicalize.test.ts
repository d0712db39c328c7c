/** Canonicalization: the table, the change list and its order, no mutation, verdicts unchanged. */
import { describe, expect, it } from 'vitest';
import { canonicalizeEnvelope, validateEnvelope } from '../../src/validator/index.js';
import { complete, env, inProgress, withState, type Env } from '../helpers/validator.js';

type Row = [name: string, envelope: Env, changes: [path: string, from: unknown, to: unknown][]];

const rows: Row[] = [
  [
    'agent_state normalized',
    withState('  complete. ', complete),
    [['agent_status.agent_state', '  complete. ', 'COMPLETE']],
  ],
  ['agent_state invalid kept', withState('COMPLETE .'), []],
  ['agent_state non-string kept', withState(5), []],
  ['agent_state already canonical reports nothing', inProgress(), []],
  [
    'next_action token done',
    env((e) => (e.agent_status.next_action = ' DONE '), complete),
    [['agent_status.next_action', ' DONE ', 'done']],
  ],
  ['next_action "done." kept', env((e) => (e.agent_status.next_action = 'done.')), []],
  ['work_phase token', env((e) => (e.work_phase = ' Executing\n')), [['work_phase', ' Executing\n', 'executing']]],
  ['work_phase non-phase kept', env((e) => (e.work_phase = 'Coding')), []],
  [
    'result: any string',
    env((e) => (e.evidence_report.verification = { result: ' Fail ' })),
    [['evidence_report.verification.result', ' Fail ', 'fail']],
  ],
  ['result non-string kept', env((e) => (e.evidence_report.verification = { result: true })), []],
  [
    'type folded, unknown words too',
    env((e) => (e.evidence_report.verification = { type: 'Dry-Run' })),
    [['evidence_report.verification.type', 'Dry-Run', 'dry_run']],
  ],
  ['type folding to "" kept', env((e) => (e.evidence_report.verification = { type: ' _-_ ' })), []],
  ['type non-string kept', env((e) => (e.evidence_report.verification = { type: 5 })), []],
  [
    'commit lower-cased and trimmed',
    env((e) => (e.evidence_report.files_checked = ['x', { path: 'a', commit: ' ABCDEF0 ' }])),
    [['evidence_report.files_checked[1].commit', ' ABCDEF0 ', 'abcdef0']],
  ],
  ['bad commit kept', env((e) => (e.evidence_report.files_checked = [{ path: 'a', commit: 'HEAD' }])), []],
  [
    'severity token',
    env((e) => (e.failure_report = { severity: 'WARNING ' })),
    [['failure_report.severity', 'WARNING ', 'warning']],
  ],
  [
    'ownership token, marked or not',
    env((e) => (e.consolidation_report = { ownership_assessment: 'Owned_Here' })),
    [['consolidation_report.ownership_assessment', 'Owned_Here', 'owned_here']],
  ],
  [
    'change order follows the canonicalization table, then document order within a row',
    env((e) => {
      e.consolidation_report = { ownership_assessment: ' NOT_MY_SURFACE' };
      e.failure_report = { attempted: 'a', symptom: 's', evidence: ['e'], severity: 'Info' };
      e.evidence_report.FILES_CHECKED = [{ path: 'b', commit: 'BBBBBBB' }];
      e.evidence_report.files_checked = [
        { path: 'a', commit: 'AAAAAAA' },
        { path: 'c', commit: 'CCCCCCC' },
      ];
      e.evidence_report.verification = { type: 'COMMAND', command: 'npm test', result: 'PASS' };
      e.work_phase = 'VERIFYING';
      e.agent_status.next_action = 'Done';
      e.agent_status.agent_state = 'complete;';
    }, complete),
    [
      ['agent_status.agent_state', 'complete;', 'COMPLETE'],
      ['agent_status.next_action', 'Done', 'done'],
      ['work_phase', 'VERIFYING', 'verifying'],
      ['evidence_report.verification.result', 'PASS', 'pass'],
      ['evidence_report.verification.type', 'COMMAND', 'command'],
      ['evidence_report.files_checked[0].commit', 'AAAAAAA', 'aaaaaaa'],
      ['evidence_report.files_checked[1].commit', 'CCCCCCC', 'ccccccc'],
      ['evidence_report.FILES_CHECKED[0].commit', 'BBBBBBB', 'bbbbbbb'],
      ['failure_report.severity', 'Info', 'info'],
      ['consolidation_report.ownership_assessment', ' NOT_MY_SURFACE', 'not_my_surface'],
    ],
  ],
];

describe('canonicalizeEnvelope', () => {
  it.each(rows)('%s', (_name, envelope, expected) => {
    const before = structuredClone(envelope);
    const { envelope: out, changes } = canonicalizeEnvelope(envelope);
    expect(changes.map((c) => [c.path, c.from, c.to])).toEqual(expected);
    expect(envelope).toEqual(before);
    expect(out).not.toBe(envelope);
    // Same [code, path] pairs before and after: canonicalizing never changes a verdict.
    const pairs = (v: unknown) => validateEnvelope(v, { consolidation: true }).errors.map((e) => [e.code, e.path]);
    expect(pairs(out)).toEqual(pairs(envelope));
    // Idempotent.
    expect(canonicalizeEnvelope(out).changes).toEqual([]);
  });

  it('returns a deep copy: nested values are not shared with the input', () => {
    const input = env((e) => (e.memory_delta = { proposals: [{ a: [1] }] }));
    const { envelope: out } = canonicalizeEnvelope(input);
    expect(out).toEqual(input);
    (out.memory_delta as Env).proposals[0].a.push(2);
    expect(input.memory_delta.proposals[0].a).toEqual([1]);
  });

  it('keeps __proto__ own keys as data, never as a prototype', () => {
    const input = JSON.parse('{"__proto__":{"polluted":true},"agent_status":{"__proto__":[1]}}') as Env;
    const { envelope: out } = canonicalizeEnvelope(input);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(['__proto__', 'agent_status']);
    expect(Object.getOwnPropertyDescriptor(out, '__proto__')?.value).toEqual({ polluted: true });
    expect(({} as Env).polluted).toBeUndefined();
  });

  it('handles non-objects and very deep values without throwing', () => {
    for (const v of [null, 5, 'x', [1, [2]], true])
      expect(canonicalizeEnvelope(v)).toEqual({ envelope: v, changes: [] });
    const deep: unknown[] = [];
    let cursor = deep;
    for (let i = 0; i < 200_000; i++) cursor = cursor[0] = [] as unknown[];
    const input = env((e) => (e.memory_delta = deep));
    expect(() => canonicalizeEnvelope(input)).not.toThrow();
  });
});
