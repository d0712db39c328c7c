import { describe, expect, it } from 'vitest';
import { initialEnvelope } from '../../src/envelope/vocabulary.js';
import { applyFill, findListCollisions, mergePatch } from '../../src/drafts/fill.js';
import { sanitizeEnvelope } from '../../src/drafts/sanitize.js';
import { HandoffError } from '../../src/errors.js';
import { validateEnvelope } from '../../src/validator/index.js';

const ID = 'a0123456789abcdef.0123456789ab';
const seed = (): Record<string, any> => initialEnvelope('a0123456789abcdef') as Record<string, any>;

describe('fill merge', () => {
  it('objects merge recursively; arrays, scalars and null replace; new keys are appended', () => {
    const base = { a: { x: 1, y: [1] }, b: 'keep', c: { z: 1 } };
    const out = mergePatch(base, { a: { y: [2], w: true }, c: null, d: 'new' });
    expect(out).toEqual({ a: { x: 1, y: [2], w: true }, b: 'keep', c: null, d: 'new' });
    expect(Object.keys(out)).toEqual(['a', 'b', 'c', 'd']);
    expect(Object.keys(out.a as object)).toEqual(['x', 'y', 'w']);
    expect(base).toEqual({ a: { x: 1, y: [1] }, b: 'keep', c: { z: 1 } });
  });

  it('{} changes nothing; a __proto__ key in a patch is an own key', () => {
    expect(mergePatch(seed(), {})).toEqual(seed());
    const out = mergePatch(seed(), JSON.parse('{"__proto__":{"x":1}}'));
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.prototype.hasOwnProperty.call(out, '__proto__')).toBe(true);
  });
});

describe('the list rule', () => {
  const withCommands = (list: unknown[]): Record<string, any> => {
    const e = seed();
    e.evidence_report.commands_run = list;
    return e;
  };

  it('re-sending the stored list is not a collision; empty, null or absent lists are written freely', () => {
    expect(
      findListCollisions(
        withCommands(['a']),
        mergePatch(withCommands(['a']), { evidence_report: { commands_run: ['a'] } }),
      ),
    ).toEqual([]);
    expect(findListCollisions(seed(), mergePatch(seed(), { evidence_report: { commands_run: ['x', 'y'] } }))).toEqual(
      [],
    );
  });

  it.each([
    [{ evidence_report: { commands_run: ['b'] } }, 1, 'array'],
    [{ evidence_report: { commands_run: ['a', 'b'] } }, 2, 'array'],
    [{ evidence_report: { commands_run: [] } }, 0, 'array'],
    [{ evidence_report: { commands_run: null } }, null, 'null'],
    [{ evidence_report: { commands_run: 'a' } }, null, 'string'],
    [{ evidence_report: { commands_run: { a: 1 } } }, null, 'object'],
    [{ evidence_report: ['x'] }, null, 'absent'],
    [{ evidence_report: null }, null, 'absent'],
  ])('%j collides (incoming %j, %s)', (patch, incoming, type) => {
    const base = withCommands(['a', 'b', 'c']);
    expect(findListCollisions(base, mergePatch(base, patch))).toEqual([
      { path: 'evidence_report.commands_run', existing: 3, incoming, incoming_type: type },
    ]);
  });

  it('names every colliding list; arrays nested in list elements are not screened', () => {
    const base = seed();
    base.agent_status.pending_steps = ['s'];
    base.evidence_report.key_outputs = [{ inner: [1] }];
    base.memory_suggestions = ['m'];
    let caught: unknown;
    try {
      applyFill(base, { agent_status: { pending_steps: [] }, memory_suggestions: 'x' }, ID);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(HandoffError);
    const err = caught as HandoffError;
    expect([err.code, err.exit]).toEqual(['FILL_LIST_COLLISION', 1]);
    expect(Object.keys(err.data)).toEqual(['draft_id', 'collisions']);
    expect((err.data.collisions as { path: string }[]).map((c) => c.path)).toEqual([
      'agent_status.pending_steps',
      'memory_suggestions',
    ]);
    expect(findListCollisions(base, mergePatch(base, { evidence_report: { key_outputs: [{ inner: [1] }] } }))).toEqual(
      [],
    );
  });
});

describe('sanitization', () => {
  it('a clean envelope needs no repair', () => {
    expect(sanitizeEnvelope(seed()).repairs).toEqual([]);
  });

  it('removes keys not accepted at the three closed levels, naming their home', () => {
    const e = seed();
    e.commands_run = ['x'];
    e.findings = 1;
    e.agent_status.agent_name = 'n';
    e.evidence_report.agent_state = 'X';
    e.evidence_report.Commands_Run = [];
    const { envelope, repairs } = sanitizeEnvelope(e);
    expect(repairs.map(({ path, action, home }) => ({ path, action, home }))).toEqual([
      { path: 'commands_run', action: 'removed', home: 'evidence_report.commands_run' },
      { path: 'findings', action: 'removed', home: undefined },
      { path: 'agent_status.agent_name', action: 'removed', home: 'agent_name' },
      { path: 'evidence_report.agent_state', action: 'removed', home: 'agent_state' },
      { path: 'evidence_report.Commands_Run', action: 'removed', home: undefined },
    ]);
    expect(validateEnvelope(envelope).ok).toBe(true);
    expect(e.commands_run).toEqual(['x']);
  });

  it('wraps lists, replaces status strings, removes other wrong types, in that order', () => {
    const e = seed();
    e.agent_status.pending_steps = 'one';
    e.evidence_report.open_gaps = { a: 1 };
    e.evidence_report.FILES_CHECKED = 'not checked';
    e.agent_status.agent_state = 5;
    e.agent_status.next_action = ['x'];
    e.agent_status.agent_id = 7;
    e.evidence_report.verification = 'pass';
    e.consolidation_report = [];
    e.approval_request = 'yes';
    e.report_prose = 3;
    const { envelope, repairs } = sanitizeEnvelope(e);
    expect(repairs.map((r) => [r.path, r.action])).toEqual([
      ['agent_status.pending_steps', 'wrapped'],
      ['evidence_report.open_gaps', 'wrapped'],
      ['agent_status.agent_state', 'replaced'],
      ['agent_status.next_action', 'replaced'],
      ['consolidation_report', 'removed'],
      ['approval_request', 'removed'],
      ['report_prose', 'removed'],
      ['agent_status.agent_id', 'removed'],
      ['evidence_report.verification', 'removed'],
    ]);
    expect(envelope.agent_status).toEqual({
      agent_state: 'IN_PROGRESS',
      pending_steps: ['one'],
      next_action: 'pending',
    });
    expect(envelope.evidence_report).toHaveProperty('open_gaps', [{ a: 1 }]);
    expect(validateEnvelope(envelope).codes).toEqual(['MISSING_FIELD']);
  });

  it('removes a non-object agent_status or evidence_report whole', () => {
    const e = seed();
    e.agent_status = 'x';
    e.evidence_report = [1];
    expect(sanitizeEnvelope(e).repairs.map((r) => [r.path, r.action])).toEqual([
      ['agent_status', 'removed'],
      ['evidence_report', 'removed'],
    ]);
  });

  it('flattens broken file references; leaves good ones and non-objects alone', () => {
    const e = seed();
    e.evidence_report.files_checked = [
      { path: 'a.ts', commit: 'ABCDEF0' },
      { path: 'b.ts' },
      { path: 'c.ts', commit: 'HEAD', line: 3 },
      { file: 'd.ts' },
      'plain',
      { path: ' ', commit: 'abcdef0' },
    ];
    e.evidence_report.FILES_CHECKED = [{ path: 'e.ts', commit: 'abc' }];
    const { envelope, repairs } = sanitizeEnvelope(e);
    expect(envelope.evidence_report).toHaveProperty('files_checked', [
      { path: 'a.ts', commit: 'ABCDEF0' },
      'b.ts',
      'c.ts {"commit":"HEAD","line":3}',
      '{"file":"d.ts"}',
      'plain',
      '{"path":" ","commit":"abcdef0"}',
    ]);
    expect(envelope.evidence_report).toHaveProperty('FILES_CHECKED', ['e.ts {"commit":"abc"}']);
    expect(repairs.map((r) => r.path)).toEqual([
      'evidence_report.files_checked[1]',
      'evidence_report.files_checked[2]',
      'evidence_report.files_checked[3]',
      'evidence_report.files_checked[5]',
      'evidence_report.FILES_CHECKED[0]',
    ]);
    expect(new Set(repairs.map((r) => r.action))).toEqual(new Set(['flattened']));
  });

  it('does not repair a string agent_id, failure_report, work_phase or open objects', () => {
    const e = seed();
    e.agent_status.agent_id = 'bad id';
    e.failure_report = 'oops';
    e.work_phase = 5;
    e.approval_request = { anything: [1] };
    expect(sanitizeEnvelope(e).repairs).toEqual([]);
  });
});
