/**
 * Required content of details and of the repair text. Wording is free; these tests pin only the
 * words, patterns and values the tool promises.
 */
import { describe, expect, it } from 'vitest';
import { AGENT_STATES, AGENT_WRITABLE_ROOT_KEYS, PHASES, SYSTEM_ROOT_KEYS } from '../../src/envelope/vocabulary.js';
import { validateEnvelope, type ValidationError } from '../../src/validator/index.js';
import { nearestKey, similarity } from '../../src/validator/similarity.js';
import { approval, complete, env, inProgress, withState, type Env } from '../helpers/validator.js';

const only = (envelope: unknown, options: Record<string, unknown> = {}): ValidationError => {
  const { errors } = validateEnvelope(envelope, options);
  expect(errors).toHaveLength(1);
  return errors[0];
};
const detailAt = (envelope: unknown, path: string, options: Record<string, unknown> = {}): string => {
  const found = validateEnvelope(envelope, options).errors.find((e) => e.path === path);
  expect(found).toBeDefined();
  return found?.detail ?? '';
};
const blocked = (): Env => withState('BLOCKED');

describe('UNKNOWN_FIELD nearest match', () => {
  it.each([
    ['workphase', (e: Env) => (e.workphase = 'x'), 'workphase', 'work_phase'],
    ['verificaton', (e: Env) => (e.evidence_report.verificaton = {}), 'evidence_report.verificaton', 'verification'],
    ['Agent_Status', (e: Env) => (e.Agent_Status = {}), 'Agent_Status', 'agent_status'],
    ['next_actions', (e: Env) => (e.agent_status.next_actions = 'x'), 'agent_status.next_actions', 'next_action'],
  ])('%s suggests its nearest key', (_n, mutate, path, nearest) => {
    expect(detailAt(env(mutate), path)).toContain(`Did you mean "${nearest}"?`);
  });

  it('root files_checkd gets the list of the 14 agent-writable keys, never a system key', () => {
    const detail = detailAt(
      env((e) => (e.files_checkd = [])),
      'files_checkd',
    );
    expect(detail).not.toContain('Did you mean');
    for (const key of AGENT_WRITABLE_ROOT_KEYS) expect(detail).toContain(key);
    for (const key of SYSTEM_ROOT_KEYS) expect(detail).not.toContain(key);
  });

  it('agent_status and evidence_report lists name their keys', () => {
    expect(
      detailAt(
        env((e) => (e.agent_status.zzz = 1)),
        'agent_status.zzz',
      ),
    ).toContain('pending_steps');
    const d = detailAt(
      env((e) => (e.evidence_report.zzz = 1)),
      'evidence_report.zzz',
    );
    expect(d).toContain('cross_layer_impacts');
    expect(d).toContain('verification');
    expect(d).not.toContain('OPEN_GAPS');
  });

  it('Ratcliff–Obershelp: values, threshold and ties', () => {
    expect(similarity('workphase', 'work_phase')).toBeCloseTo(18 / 19, 12);
    expect(similarity('', '')).toBe(1);
    expect(similarity('abc', 'xyz')).toBe(0);
    // "abcdefg" vs "abcdefgxyz": M = 7, 14/17 >= 0.7; 7 chars vs 13: 14/20 = 0.7 exactly qualifies.
    expect(nearestKey('abcdefg', ['abcdefgxyzuvw'])).toBe('abcdefgxyzuvw');
    expect(nearestKey('abcdefg', ['abcdefgxyzuvwq'])).toBeUndefined();
    expect(nearestKey('ab', ['ab_', 'ab-'])).toBe('ab_');
    expect(nearestKey('x'.repeat(1_000_000), ['agent_status'])).toBeUndefined();
  });
});

describe('details carry the required words', () => {
  it('MISSING_FIELD: object envelope; lists and pending_steps accept []; agent_id origin', () => {
    expect(only([]).detail).toMatch(/JSON object/);
    expect(only('x', { source: 'row' }).detail).toMatch(/stored value is not an object/);
    expect(
      detailAt(
        env((e) => delete e.evidence_report.open_gaps),
        'evidence_report.open_gaps',
      ),
    ).toContain('[]');
    expect(
      detailAt(
        env((e) => delete e.agent_status.pending_steps),
        'agent_status.pending_steps',
      ),
    ).toContain('[]');
    expect(
      detailAt(
        env((e) => (e.agent_status.agent_id = '')),
        'agent_status.agent_id',
      ),
    ).toMatch(/init/);
  });

  it('PLAN_STATUS: the value, the six states, DISPATCHED is row-only', () => {
    const d = only(withState('in progress')).detail;
    expect(d).toContain('"in progress"');
    for (const s of AGENT_STATES) expect(d).toContain(s);
    expect(only(withState('dispatched')).detail).toMatch(/row-only/);
  });

  it('AGENT_ID_FORMAT: the value and the pattern', () => {
    const d = detailAt(
      env((e) => (e.agent_status.agent_id = 'agent-7')),
      'agent_status.agent_id',
    );
    expect(d).toContain('"agent-7"');
    expect(d).toContain('^a[0-9a-f]{16,}$');
    expect(d).toMatch(/verbatim/);
  });

  it('FIELD_TYPE: "<path> must be a(n) <expected>, got <received>"', () => {
    expect(only(env((e) => (e.evidence_report.key_outputs = 'x'))).detail).toContain(
      'evidence_report.key_outputs must be an array, got string',
    );
    expect(only(env((e) => (e.agent_status = 5))).detail).toContain('agent_status must be an object, got number');
    expect(only(env((e) => (e.report_prose = []))).detail).toContain('report_prose must be a string, got array');
    expect(only(env((e) => (e.approval_request = true))).detail).toContain('must be an object, got boolean');
  });

  it('MISPLACED_KEY: home path, NOTHING, strips; agent_state points at agent_status.agent_state', () => {
    const d = only(env((e) => (e.commands_run = []))).detail;
    expect(d).toContain('evidence_report.commands_run');
    expect(d).toContain('NOTHING');
    expect(d).toContain('strips');
    const s = only(env((e) => (e.evidence_report.agent_state = 'x'))).detail;
    expect(s).toContain('agent_status.agent_state');
    expect(s).toContain('NOTHING');
  });

  const orderCases: [string, Env, string, Record<string, unknown>?][] = [
    [
      'VERIFICATION_SHAPE companion',
      env((e) => (e.evidence_report.verification = { type: 'semantic' })),
      'evidence_report.verification.requires_human',
    ],
    [
      'VERIFICATION_SHAPE unknown word',
      env((e) => (e.evidence_report.verification = { type: 'oracle' })),
      'evidence_report.verification',
    ],
    [
      'VERIFICATION_RESULT block',
      env((e) => delete e.evidence_report.verification, complete),
      'evidence_report.verification',
    ],
    [
      'VERIFICATION_RESULT result',
      env((e) => (e.evidence_report.verification.result = 'fail'), complete),
      'evidence_report.verification.result',
    ],
    [
      'COMPLETE_SHAPE next_action',
      env((e) => (e.agent_status.next_action = 'later'), complete),
      'agent_status.next_action',
    ],
    [
      'COMPLETE_SHAPE pending_steps',
      env((e) => (e.agent_status.pending_steps = ['x']), complete),
      'agent_status.pending_steps',
    ],
    ['APPROVAL_REQUEST_SHAPE block', env((e) => (e.approval_request = null), approval), 'approval_request'],
    [
      'APPROVAL_REQUEST_SHAPE exact_content',
      env((e) => (e.approval_request = { a: 1 }), approval),
      'approval_request.exact_content',
    ],
    [
      'CONSOLIDATION_REPORT_SHAPE',
      env((e) => (e.consolidation_report = null), blocked),
      'consolidation_report',
      { consolidation: true },
    ],
  ];
  it.each(orderCases)('%s says "order"', (_n, envelope, path, options) => {
    expect(detailAt(envelope, path, options)).toContain('order');
  });

  it('VERIFICATION_SHAPE names the folded type, the companion and "none"', () => {
    const d = detailAt(
      env((e) => (e.evidence_report.verification = { type: 'Self Review' })),
      'evidence_report.verification.reviewed',
    );
    expect(d).toContain('"self_review"');
    expect(d).toContain('reviewed');
    const u = detailAt(
      env((e) => (e.evidence_report.verification = { type: 'Dry-Run' })),
      'evidence_report.verification',
    );
    for (const w of ['"dry_run"', 'command', 'reviewed', 'requires_human', '"none"']) expect(u).toContain(w);
  });

  it('VERIFICATION_RESULT gives a fill line of a typed claim citing a receipt, never a bare pass', () => {
    const d = detailAt(
      env((e) => delete e.evidence_report.verification, complete),
      'evidence_report.verification',
    );
    expect(d).toContain('handoff evidence run -- <cmd>');
    const line = /handoff contract fill --json '([^']+)'/.exec(d);
    expect(line).not.toBeNull();
    const text = (line?.[1] ?? '{}').replace('<cmd>', 'npm test').replace('<receipt id>', 'R-0123456789abcdef');
    const patch = JSON.parse(text) as Env;
    expect(patch.evidence_report.verification).toMatchObject({ type: 'command', command: 'npm test' });
    // The line writes a valid block: applying it to the rejected envelope makes it pass.
    expect(
      validateEnvelope(env((e) => (e.evidence_report.verification = patch.evidence_report.verification), complete)).ok,
    ).toBe(true);
    const r = detailAt(
      env((e) => (e.evidence_report.verification.result = 'passed'), complete),
      'evidence_report.verification.result',
    );
    expect(r).toContain('"passed"');
    expect(r).toContain('NEEDS_VERIFICATION');
  });

  it('COMPLETE_SHAPE gives the set that fixes it', () => {
    expect(
      detailAt(
        env((e) => (e.agent_status.next_action = 'x'), complete),
        'agent_status.next_action',
      ),
    ).toContain('set agent_status.next_action done');
    expect(
      detailAt(
        env((e) => (e.agent_status.pending_steps = [1]), complete),
        'agent_status.pending_steps',
      ),
    ).toContain("set agent_status.pending_steps '[]'");
  });

  it('APPROVAL_REQUEST_SHAPE, CONSOLIDATION_REPORT_SHAPE and FAILURE_REPORT_SHAPE name their rule', () => {
    expect(
      detailAt(
        env((e) => (e.approval_request = {}), approval),
        'approval_request',
      ),
    ).toContain('exact_content');
    const c = detailAt(
      env((e) => (e.consolidation_report = { ownership_assessment: 'x' }), blocked),
      'consolidation_report.ownership_assessment',
      { consolidation: true },
    );
    for (const w of ['owned_here', 'cross_surface_dependency', 'not_my_surface', 'fill --json']) expect(c).toContain(w);
    const f = detailAt(
      env((e) => (e.failure_report = { attempted: 'a', symptom: 's', evidence: [] })),
      'failure_report.evidence',
    );
    expect(f).toContain('fill --json');
    expect(f).toMatch(/omitting it .*always valid/);
  });

  it('RECEIPT_REF_SHAPE: value, pattern, origin, null cites nothing', () => {
    const d = detailAt(
      env((e) => (e.evidence_report.verification = { receipt: 'R-1' })),
      'evidence_report.verification.receipt',
    );
    for (const w of ['"R-1"', '^R-[0-9a-f]{16}$', 'handoff evidence run', 'handoff contract verify', 'null or absent'])
      expect(d).toContain(w);
  });

  it('WORK_PHASE_SHAPE: value, phases, null allowed', () => {
    const d = only(env((e) => (e.work_phase = 'coding'))).detail;
    expect(d).toContain('"coding"');
    for (const p of PHASES) expect(d).toContain(p);
    expect(d).toContain('null');
  });

  it('FILE_REFERENCE_SHAPE: {path, commit}, 7-64 hex, plain strings accepted', () => {
    const d = only(env((e) => (e.evidence_report.files_checked = [{ path: 'a', commit: 'abcdef0', line: 3 }]))).detail;
    expect(d).toContain('{path, commit}');
    expect(d).toMatch(/7-64 hex/);
    expect(d).toMatch(/plain string/);
  });

  it('values in details are JSON text, bounded to about 80 characters', () => {
    const d = only(withState('x'.repeat(1_000_000))).detail;
    expect(d.length).toBeLessThan(400);
    expect(d).toContain('"xxxx');
    const deep: unknown[] = [];
    let cursor = deep;
    for (let i = 0; i < 100_000; i++) cursor = cursor[0] = [] as unknown[];
    expect(only(env((e) => (e.work_phase = deep))).detail).toContain('[[[[');
  });
});

describe('repair text', () => {
  const declaration = validateEnvelope(inProgress()).repair;
  const row = validateEnvelope(null, { source: 'row' }).repair;

  it('is constant per source, ok or not, and short', () => {
    expect(validateEnvelope([]).repair).toBe(declaration);
    expect(validateEnvelope(withState('x'), { source: 'declaration' }).repair).toBe(declaration);
    expect(validateEnvelope(inProgress(), { source: 'row' }).repair).toBe(row);
    expect(declaration.length).toBeLessThan(3000);
    expect(row.length).toBeLessThan(3000);
  });

  it('sources differ only in the opening sentence', () => {
    const [dHead, ...dRest] = declaration.split('\n');
    const [rHead, ...rRest] = row.split('\n');
    expect(dHead).not.toBe(rHead);
    expect(dRest).toEqual(rRest);
    expect(dHead).toMatch(/stored nothing/);
    expect(rHead).toMatch(/draft verbs/);
  });

  it('conveys the required content', () => {
    for (const w of [
      'build order',
      '^a[0-9a-f]{16,}$',
      'init',
      '"done"',
      'exact_content',
      'consolidation_report',
      'NEEDS_VERIFICATION',
      'method',
      'requires_human',
      'reviewed',
      '"none"',
      'write-once',
      'add ',
      'set ',
      'fill --json',
      '--json-file',
      'handoff evidence run',
      'RECEIPT_REQUIRED',
    ]) {
      expect(declaration).toContain(w);
    }
    for (const s of AGENT_STATES) expect(declaration).toContain(s);
  });

  it('embeds a compact JSON template of a valid envelope with a typed verification claim', () => {
    const line = declaration.split('\n').find((l) => l.startsWith('{'));
    const template = JSON.parse(line ?? 'null') as Env;
    template.agent_status.agent_id = 'a0123456789abcdef';
    expect(validateEnvelope(template).ok).toBe(true);
    expect(template.evidence_report.verification).toMatchObject({
      type: 'command',
      command: expect.any(String),
      result: 'pass',
    });
  });
});
