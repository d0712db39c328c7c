/**
 * Hook JSON on stdin, parsed through its zod/mini schema: every refusal keeps its code and its message, and fields of
 * the wrong type read as absent.
 */
import { describe, expect, it } from 'vitest';
import { isHandoffError } from '../../src/errors.js';
import { parseHookInput, type HarnessChoice } from '../../src/gate/hook-input.js';

function refusal(
  raw: string,
  harness: HarnessChoice = 'auto',
): { code: string; exit: number; message: string } | undefined {
  try {
    parseHookInput(raw, harness);
  } catch (e) {
    return isHandoffError(e)
      ? { code: e.code, exit: e.exit, message: e.message }
      : { code: 'NOT_A_HANDOFF_ERROR', exit: -1, message: String(e) };
  }
  return undefined;
}

const EXPECTED_EVENTS = 'for --harness claude (expected "Stop" or "SubagentStop")';
const unrecognized = (event: string): string =>
  `unrecognized hook input (hook_event_name ${event}): not a Claude Code or Codex Stop/SubagentStop, Gemini AfterAgent, Copilot agentStop or Cursor stop; pass --harness`;

describe('parseHookInput refusals: HOOK_INPUT_INVALID, exit 1, the same messages', () => {
  it.each([
    ['', 'no hook JSON on stdin (pass --draft-id ID to gate without one)'],
    [' \n', 'no hook JSON on stdin (pass --draft-id ID to gate without one)'],
    ['[1]', 'hook input on stdin is not a JSON object'],
    ['null', 'hook input on stdin is not a JSON object'],
    ['"Stop"', 'hook input on stdin is not a JSON object'],
    ['42', 'hook input on stdin is not a JSON object'],
    ['{}', unrecognized('null')],
    ['{"hook_event_name":null}', unrecognized('null')],
    ['{"hook_event_name":"PreToolUse"}', unrecognized('"PreToolUse"')],
    ['{"hook_event_name":"stop"}', unrecognized('"stop"')],
    ['{"hook_event_name":5}', unrecognized('5')],
    ['{"hook_event_name":["Stop"]}', unrecognized('["Stop"]')],
    ['{"__proto__":{"hook_event_name":"Stop"}}', unrecognized('null')],
  ])('auto: %j', (raw, message) => {
    expect(refusal(raw)).toEqual({ code: 'HOOK_INPUT_INVALID', exit: 1, message });
  });

  it.each([
    ['{}', `unknown hook_event_name null ${EXPECTED_EVENTS}`],
    ['{"hook_event_name":"PreToolUse"}', `unknown hook_event_name "PreToolUse" ${EXPECTED_EVENTS}`],
    ['{"hook_event_name":"stop"}', `unknown hook_event_name "stop" ${EXPECTED_EVENTS}`],
    ['{"hook_event_name":5}', `unknown hook_event_name 5 ${EXPECTED_EVENTS}`],
  ])('--harness claude: %j', (raw, message) => {
    expect(refusal(raw, 'claude')).toEqual({ code: 'HOOK_INPUT_INVALID', exit: 1, message });
  });

  it('an event of another harness under an explicit --harness is refused', () => {
    expect(refusal('{"hook_event_name":"Stop","session_id":"s"}', 'gemini')?.message).toBe(
      'unknown hook_event_name "Stop" for --harness gemini (expected "AfterAgent")',
    );
    expect(refusal('{"hook_event_name":"AfterAgent"}', 'cursor')?.message).toBe(
      'unknown hook_event_name "AfterAgent" for --harness cursor (expected "stop")',
    );
  });

  it('names the parser error for text that is not JSON', () => {
    const r = refusal('{"hook_event_name":');
    expect(r?.code).toBe('HOOK_INPUT_INVALID');
    expect(r?.exit).toBe(1);
    expect(r?.message).toMatch(/^hook input on stdin is not valid JSON: \S/);
  });
});

describe('parseHookInput fields', () => {
  it('reads the fields of its event only; non-strings, blanks and inherited names read as absent', () => {
    const input = parseHookInput(
      JSON.stringify({
        hook_event_name: 'Stop',
        session_id: ['S'],
        transcript_path: '  ',
        stop_reason: { text: 'end_turn' },
        cwd: 7,
        agent_id: 'not read for Stop',
        agent_transcript_path: '/not/read.jsonl',
      }),
    );
    expect(Object.entries(input).filter(([, v]) => v !== undefined)).toEqual([
      ['harness', 'claude'],
      ['event', 'Stop'],
      ['subagent', false],
    ]);
  });

  it('keeps a field exactly as given (no trimming of a non-blank value)', () => {
    const input = parseHookInput(
      JSON.stringify({ hook_event_name: 'SubagentStop', agent_id: ' a-1 ', cwd: '/w d', stop_reason: 'end_turn' }),
    );
    expect(JSON.parse(JSON.stringify(input))).toEqual({
      harness: 'claude',
      event: 'SubagentStop',
      subagent: true,
      agentId: ' a-1 ',
      cwd: '/w d',
      stopReason: 'end_turn',
    });
    expect(input.transcriptPath).toBeUndefined();
  });
});
