import { describe, expect, it } from 'vitest';
import { breakerKey } from '../../src/gate/breaker-key.js';
import { nextAttempt } from '../../src/gate/breaker.js';
import { capturedEnvelope } from '../../src/gate/capture.js';
import { decide, type TipStatus } from '../../src/gate/decision.js';
import { agentLabel, harnessValue, ownTranscript, parseHookInput, type HookInput } from '../../src/gate/hook-input.js';
import { attemptLine, blockReason, excusedMessage, tripMessage } from '../../src/gate/reason.js';
import { classifyStop, resolveStopReason, type StopClass } from '../../src/gate/stop-class.js';
import { initialEnvelope } from '../../src/envelope/vocabulary.js';
import { isHandoffError } from '../../src/errors.js';

const codeOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (e) {
    return isHandoffError(e) ? e.code : 'NOT_A_HANDOFF_ERROR';
  }
  return undefined;
};

const subagent = JSON.stringify({
  session_id: 'sess-1',
  transcript_path: '/parent.jsonl',
  agent_id: 'agent-7',
  agent_type: 'implementer',
  agent_transcript_path: '/agent.jsonl',
  hook_event_name: 'SubagentStop',
  stop_hook_active: true,
  cwd: '/work/repo',
  last_assistant_message: 'contract_id: a0123456789abcdef.0123456789ab (all done!)',
});

describe('parseHookInput', () => {
  it('reads the SubagentStop fields and never the parent transcript', () => {
    const input = parseHookInput(subagent);
    expect(JSON.parse(JSON.stringify(input))).toEqual({
      harness: 'claude',
      event: 'SubagentStop',
      subagent: true,
      sessionId: 'sess-1',
      agentId: 'agent-7',
      agentType: 'implementer',
      transcriptPath: '/agent.jsonl',
      stopHookActive: true,
      cwd: '/work/repo',
    });
    expect(harnessValue(input)).toBe('agent-7');
    expect(ownTranscript(input)).toBe('/agent.jsonl');
    expect(agentLabel(input)).toBe('implementer agent-7');
  });

  it('reads Stop: the session id is the harness value and transcript_path the own transcript', () => {
    const input = parseHookInput(
      JSON.stringify({
        hook_event_name: 'Stop',
        session_id: 'S',
        transcript_path: '/t.jsonl',
        stop_reason: 'max_tokens',
      }),
    );
    expect(harnessValue(input)).toBe('S');
    expect(ownTranscript(input)).toBe('/t.jsonl');
    expect(input.stopReason).toBe('max_tokens');
    expect(input.agentId).toBeUndefined();
  });

  it('treats blank and non-string fields as absent', () => {
    const input = parseHookInput(JSON.stringify({ hook_event_name: 'SubagentStop', session_id: '  ', agent_id: 7 }));
    expect(input.sessionId).toBeUndefined();
    expect(harnessValue(input)).toBeUndefined();
  });

  it.each([
    ['', 'empty'],
    ['   \n', 'blank'],
    ['{', 'not JSON'],
    ['[1]', 'an array'],
    ['null', 'null'],
    ['"Stop"', 'a string'],
    ['{}', 'no event'],
    ['{"hook_event_name":"PreToolUse"}', 'another event'],
    ['{"hook_event_name":"stop"}', 'wrong case'],
  ])('refuses %j (%s) with HOOK_INPUT_INVALID', (raw) => {
    expect(codeOf(() => parseHookInput(raw))).toBe('HOOK_INPUT_INVALID');
  });
});

describe('breakerKey', () => {
  const sub = (o: Partial<HookInput>): HookInput => ({
    harness: 'claude',
    event: 'SubagentStop',
    subagent: true,
    ...o,
  });
  const top = (o: Partial<HookInput>): HookInput => ({ harness: 'claude', event: 'Stop', subagent: false, ...o });
  it.each<[string | undefined, HookInput | undefined, string | undefined, boolean | undefined]>([
    ['a0123456789abcdef.012345', sub({ sessionId: 's', agentId: 'x' }), 'draft:a0123456789abcdef.012345', true],
    [undefined, sub({ sessionId: 's', agentId: 'x' }), 'subagent:s:x', true],
    [undefined, sub({ sessionId: 's', transcriptPath: '/a.jsonl' }), 'subagent:s:transcript:/a.jsonl', true],
    [undefined, sub({ sessionId: 's', agentType: 'implementer' }), undefined, undefined],
    [undefined, top({ sessionId: 's' }), 'session:s', false],
    [undefined, top({}), undefined, undefined],
    [undefined, top({ harness: 'codex', sessionId: 's', turnId: 't1' }), 'codex:turn:s:t1', true],
    [undefined, sub({ harness: 'codex', sessionId: 's', agentId: 'x', turnId: 't1' }), 'codex:subagent:s:x', true],
    [undefined, top({ harness: 'gemini', event: 'AfterAgent', sessionId: 's' }), 'gemini:session:s', false],
    [undefined, top({ harness: 'copilot', event: 'agentStop', sessionId: 's' }), 'copilot:session:s', false],
    [undefined, top({ harness: 'cursor', event: 'stop', sessionId: 'c' }), 'cursor:session:c', false],
    [undefined, undefined, undefined, undefined],
  ])('draft %s, input %j -> %s', (draftId, input, key, turnScoped) => {
    expect(breakerKey(draftId, input)?.key).toBe(key);
    expect(breakerKey(draftId, input)?.turnScoped).toBe(turnScoped);
  });

  it('never falls back to the agent type (two agents of one type get two keys)', () => {
    const a = breakerKey(undefined, sub({ sessionId: 's', agentId: 'one', agentType: 'implementer' }));
    const b = breakerKey(undefined, sub({ sessionId: 's', agentId: 'two', agentType: 'implementer' }));
    expect(a).not.toBe(b);
  });
});

describe('stop classification', () => {
  it.each<[string | undefined, StopClass]>([
    ['max_tokens', 'truncation'],
    ['tool_use', 'truncation'],
    ['model_context_window_exceeded', 'truncation'],
    ['end_turn', 'violation'],
    ['stop_sequence', 'unknown'],
    ['END_TURN', 'unknown'],
    ['', 'unknown'],
    [undefined, 'unknown'],
  ])('%j -> %s', (reason, cls) => {
    expect(classifyStop(reason)).toBe(cls);
  });

  it('takes the flag, then the hook input, then the transcript (read only when the input has none)', () => {
    let read = 0;
    const transcript = (): string => {
      read++;
      return 'tool_use';
    };
    expect(resolveStopReason('max_tokens', 'end_turn', transcript)).toEqual({ reason: 'max_tokens', source: 'input' });
    expect(resolveStopReason(undefined, 'end_turn', transcript)).toEqual({ reason: 'end_turn', source: 'input' });
    expect(read).toBe(0);
    expect(resolveStopReason(' ', undefined, transcript)).toEqual({ reason: 'tool_use', source: 'transcript' });
    expect(read).toBe(1);
    expect(resolveStopReason(undefined, undefined, () => undefined)).toEqual({});
  });
});

describe('decision table', () => {
  const closed = (check: 'pass' | 'verdict_failed' | 'hard_failed'): TipStatus => ({ kind: 'closed', check });
  it.each<[string, TipStatus, StopClass, 'block' | 'allow', number, string, string, boolean]>([
    ['row 1', closed('pass'), 'violation', 'block', 1, 'allow', 'row', false],
    ['row 1 (truncation)', closed('pass'), 'truncation', 'block', 1, 'allow', 'row', false],
    ['row 2 (violation)', closed('hard_failed'), 'violation', 'block', 2, 'block', 'row', false],
    ['row 2 (never excused)', closed('hard_failed'), 'truncation', 'block', 2, 'block', 'row', false],
    ['row 3', closed('verdict_failed'), 'truncation', 'block', 3, 'allow', 'row', true],
    ['row 4 (violation)', closed('verdict_failed'), 'violation', 'block', 4, 'block', 'row', false],
    ['row 4 (unknown)', closed('verdict_failed'), 'unknown', 'block', 4, 'block', 'row', false],
    ['row 5', { kind: 'unfinalized' }, 'truncation', 'block', 5, 'allow', 'row_unfinalized', true],
    ['row 6 (violation)', { kind: 'unfinalized' }, 'violation', 'block', 6, 'block', 'row_unfinalized', false],
    ['row 6 (unknown)', { kind: 'unfinalized' }, 'unknown', 'allow', 6, 'block', 'row_unfinalized', false],
    [
      'no contract is never excused (truncation)',
      { kind: 'missing' },
      'truncation',
      'block',
      8,
      'block',
      'row_missing',
      false,
    ],
    [
      'no contract, truncation, --on-missing allow',
      { kind: 'missing' },
      'truncation',
      'allow',
      8,
      'allow',
      'row_missing',
      false,
    ],
    ['row 8 (block)', { kind: 'missing' }, 'violation', 'block', 8, 'block', 'row_missing', false],
    ['row 8 (unknown)', { kind: 'missing' }, 'unknown', 'block', 8, 'block', 'row_missing', false],
    ['row 8 (--on-missing allow)', { kind: 'missing' }, 'violation', 'allow', 8, 'allow', 'row_missing', false],
  ])('%s', (_name, tip, cls, onMissing, row, decision, source, excused) => {
    expect(decide(tip, cls, onMissing)).toEqual({ row, decision, source, excused });
  });
});

describe('breaker arithmetic', () => {
  it('counts to the ceiling, trips there, and stays tripped at its count', () => {
    let state = nextAttempt(undefined, 3);
    expect(state).toEqual({ attempts: 1, tripped: false });
    state = nextAttempt(state, 3);
    expect(state).toEqual({ attempts: 2, tripped: false });
    state = nextAttempt(state, 3);
    expect(state).toEqual({ attempts: 3, tripped: true });
    expect(nextAttempt(state, 3)).toEqual({ attempts: 3, tripped: true });
  });

  it('--max-rejections 1 trips on the first rejection (advisory mode)', () => {
    expect(nextAttempt(undefined, 1)).toEqual({ attempts: 1, tripped: true });
  });
});

describe('capturedEnvelope', () => {
  it('forces IN_PROGRESS, marks degraded and auto_captured, keeps everything else and never mutates the draft', () => {
    const draft = initialEnvelope('a0123456789abcdef');
    (draft.agent_status as Record<string, unknown>).agent_state = 'COMPLETE';
    const before = JSON.stringify(draft);
    const env = capturedEnvelope(draft, '2026-01-01T00:00:00.000Z', 'end_turn')!;
    expect(JSON.stringify(draft)).toBe(before);
    expect((env.agent_status as Record<string, unknown>).agent_state).toBe('IN_PROGRESS');
    expect(env.degraded).toBe(true);
    expect(env.auto_captured).toEqual({
      by: 'gate',
      at: '2026-01-01T00:00:00.000Z',
      declared_agent_state: 'COMPLETE',
      stop_reason: 'end_turn',
    });
    expect(env.evidence_report).toEqual(draft.evidence_report);
  });

  it('records a missing state and stop reason as null; refuses a draft without an agent_status object', () => {
    const env = capturedEnvelope({ agent_status: {} }, 'now', undefined)!;
    expect(env.auto_captured).toEqual({ by: 'gate', at: 'now', declared_agent_state: null, stop_reason: null });
    expect(capturedEnvelope({ agent_status: 'x' }, 'now', undefined)).toBeUndefined();
    expect(capturedEnvelope({}, 'now', undefined)).toBeUndefined();
  });
});

describe('reason texts', () => {
  it('starts with [CONTRACT REJECTED] and ends with the attempt line', () => {
    const text = blockReason(
      {
        kind: 'unfinalized',
        contractId: 'a0123456789abcdef.0123456789ab',
        state: 'DISPATCHED',
        cutReason: 'never_finalized',
        captured: true,
      },
      { key: 'k', attempt: 2, max: 3, previousCodes: ['ROW_NOT_FINALIZED'] },
    );
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^\[CONTRACT REJECTED\] /);
    expect(text).toContain('handoff contract finalize --draft-id a0123456789abcdef.0123456789ab');
    for (const s of ['COMPLETE', 'NEEDS_VERIFICATION', 'BLOCKED', 'NEEDS_INPUT', 'APPROVAL_REQUEST'])
      expect(text).toContain(s);
    expect(lines[lines.length - 1]).toMatch(
      /^This is block 2 of 2: after block 2 of 2 .*Previous block: ROW_NOT_FINALIZED\.$/,
    );
  });

  it('says when there is no ceiling, and when the counter is unavailable', () => {
    expect(attemptLine({ max: 3 })).toBe('No rejection ceiling for this turn.');
    expect(attemptLine({ key: 'k', max: 3, counterError: 'busy' })).toMatch(/ceiling is unavailable/);
  });

  it('prints the claim command with the real harness value for ROW_NOT_FOUND', () => {
    const text = blockReason(
      {
        kind: 'missing',
        lanes: [{ lane: 'draft_id', note: 'no --draft-id given' }],
        candidates: ['x', 'y'],
        harnessValue: 'agent-7',
        harnessField: 'agent_id',
      },
      { max: 3 },
    );
    expect(text).toContain('--harness-id agent-7');
    expect(text).toContain('Candidates (ambiguous): x, y');
    expect(text).toContain('not consulted');
  });

  it('systemMessage texts name the contract or say none was found', () => {
    expect(excusedMessage('max_tokens', undefined, '')).toBe(
      'handoff: turn cut by the harness (max_tokens); no contract was found for this turn.',
    );
    expect(excusedMessage('tool_use', 'c1', 'captured as IN_PROGRESS')).toContain(
      'contract c1 is not complete (captured as IN_PROGRESS)',
    );
    expect(tripMessage(3, 3, 'implementer a', undefined, ['ROW_NOT_FOUND'])).toBe(
      'handoff: contract gate gave up after block 2 of 2; implementer a closed DEGRADED; contract none is NOT complete (last: ROW_NOT_FOUND).',
    );
    expect(tripMessage(1, 1, 'implementer a', 'c1', ['ROW_NOT_FINALIZED'])).toMatch(
      /^handoff: contract gate gave up without blocking \(--max-rejections 1 allows no block\); /,
    );
  });
});
