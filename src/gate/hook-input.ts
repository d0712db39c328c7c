/**
 * The stop hook's input, per harness: Claude Code and Codex CLI (`Stop` / `SubagentStop`), Gemini CLI (`AfterAgent`),
 * Copilot CLI (`agentStop`, camelCase keys) and Cursor (`stop`). Each shape is read into one HookInput; only the fields
 * the gate uses are read, through a zod/mini schema. The last assistant message is never read (message text is never
 * a verdict input). Any problem is HOOK_INPUT_INVALID: the gate fails open (exit 1, "stop not gated").
 */
import * as z from 'zod/mini';
import { HandoffError } from '../errors.js';
import { tryParseJson } from '../json.js';

/** The harnesses whose stop hooks the gate answers. */
export const HARNESSES = ['claude', 'codex', 'gemini', 'copilot', 'cursor', 'opencode'] as const;
export type Harness = (typeof HARNESSES)[number];
export type HarnessChoice = Harness | 'auto';

export interface HookInput {
  harness: Harness;
  /** The event as the harness names it (`Stop`, `SubagentStop`, `AfterAgent`, `agentStop`, `stop`). */
  event: string;
  /** A subagent's stop (Claude Code or Codex `SubagentStop`): its own run id and transcript. */
  subagent: boolean;
  sessionId?: string;
  /** A subagent's run id. */
  agentId?: string;
  /** A label for messages only. */
  agentType?: string;
  /** Codex: the turn being stopped (the breaker's key). */
  turnId?: string;
  /** The turn's own transcript (a subagent's own, never its parent's). */
  transcriptPath?: string;
  /** Gemini: the turn's prompt, given on stdin. */
  prompt?: string;
  /** The harness's own stop reason (Copilot `stopReason`, Cursor `status`, or `stop_reason`). */
  stopReason?: string;
  /** The harness is continuing because a stop hook blocked (Cursor: `loop_count` above 0). */
  stopHookActive?: boolean;
  cwd?: string;
}

const invalid = (message: string): HandoffError => new HandoffError('HOOK_INPUT_INVALID', message);

/** The most hook input the gate reads: a harness's stop input is a few kilobytes; 64 MiB is never a real one. */
export const HOOK_INPUT_MAX_BYTES = 64 * 1024 * 1024;

/** The gate's limit on stdin: past HOOK_INPUT_MAX_BYTES the rest is not read (HOOK_INPUT_TOO_LARGE). */
export const HOOK_INPUT_LIMIT = {
  maxBytes: HOOK_INPUT_MAX_BYTES,
  tooLarge: (maxBytes: number): HandoffError =>
    new HandoffError(
      'HOOK_INPUT_TOO_LARGE',
      `the hook input is over ${maxBytes} bytes (${maxBytes / 1024 / 1024} MiB); the rest was not read`,
      { limit_bytes: maxBytes },
    ),
};

/** A non-blank string field; blank, absent or any other type reads as absent (never a refusal). */
const text = z.catch(z.optional(z.string().check(z.regex(/\S/))), undefined);
const flag = z.catch(z.optional(z.boolean()), undefined);
const count = z.catch(z.optional(z.number()), undefined);

let hookSchema: ReturnType<typeof buildHookSchema> | undefined;
function buildHookSchema() {
  return z.looseObject({
    hook_event_name: text,
    session_id: text,
    sessionId: text,
    conversation_id: text,
    turn_id: text,
    agent_id: text,
    agent_type: text,
    agent_transcript_path: text,
    transcript_path: text,
    transcriptPath: text,
    prompt: text,
    stop_reason: text,
    stopReason: text,
    status: text,
    stop_hook_active: flag,
    loop_count: count,
    cwd: text,
  });
}
type Raw = z.infer<ReturnType<typeof buildHookSchema>>;

const own = (v: Record<string, unknown>, k: string): boolean => Object.prototype.hasOwnProperty.call(v, k);

/** Which harness wrote this input, from its keys (`--harness auto`); undefined when no shape fits. */
export function detectHarness(v: Record<string, unknown>): Harness | undefined {
  const event = v.hook_event_name;
  if (event === 'AfterAgent') return 'gemini';
  if (own(v, 'sessionId') && own(v, 'stopReason')) return 'copilot';
  if (own(v, 'turn_id')) return 'codex';
  if (own(v, 'loop_count') || (own(v, 'status') && event === 'stop')) return 'cursor';
  if (event === 'Stop' || event === 'SubagentStop') return 'claude';
  return undefined;
}

/** The events each harness may send to this hook (an event of another hook is bad input). */
const EVENTS: Record<Harness, readonly (string | undefined)[]> = {
  claude: ['Stop', 'SubagentStop'],
  codex: ['Stop', 'SubagentStop'],
  gemini: ['AfterAgent'],
  copilot: ['agentStop', undefined],
  cursor: ['stop', undefined],
  // The OpenCode plugin's own input (never recognized by auto): its session.idle event.
  opencode: ['session.idle'],
};

function fromRaw(harness: Harness, h: Raw): HookInput {
  const base = { harness, cwd: h.cwd, stopHookActive: h.stop_hook_active };
  switch (harness) {
    case 'claude':
    case 'codex': {
      const subagent = h.hook_event_name === 'SubagentStop';
      const input: HookInput = {
        ...base,
        event: h.hook_event_name!,
        subagent,
        sessionId: h.session_id,
        stopReason: h.stop_reason,
      };
      if (harness === 'codex') input.turnId = h.turn_id;
      if (subagent) {
        input.agentId = h.agent_id;
        input.agentType = h.agent_type;
        input.transcriptPath = h.agent_transcript_path;
      } else input.transcriptPath = h.transcript_path;
      return input;
    }
    case 'opencode':
      return { ...base, event: 'session.idle', subagent: false, sessionId: h.session_id, prompt: h.prompt };
    case 'gemini':
      return {
        ...base,
        event: 'AfterAgent',
        subagent: false,
        sessionId: h.session_id,
        transcriptPath: h.transcript_path,
        prompt: h.prompt,
      };
    case 'copilot':
      return {
        ...base,
        event: 'agentStop',
        subagent: false,
        sessionId: h.sessionId,
        transcriptPath: h.transcriptPath,
        stopReason: h.stopReason,
      };
    case 'cursor': {
      const looping = h.loop_count === undefined ? h.stop_hook_active : h.loop_count > 0;
      return {
        ...base,
        stopHookActive: looping,
        event: 'stop',
        subagent: false,
        sessionId: h.conversation_id,
        transcriptPath: h.transcript_path,
        stopReason: h.status,
      };
    }
  }
}

/** Parses the hook JSON of `choice` (auto: recognized from its keys). Throws HOOK_INPUT_INVALID. */
export function parseHookInput(raw: string, choice: HarnessChoice = 'auto'): HookInput {
  // Some harnesses start their payload with a byte-order mark.
  const body = raw.startsWith('\uFEFF') ? raw.slice(1) : raw;
  if (body.trim() === '') throw invalid('no hook JSON on stdin (pass --draft-id ID to gate without one)');
  const parsed = tryParseJson(body);
  if (!parsed.ok) throw invalid(`hook input on stdin is not valid JSON: ${parsed.message}`);
  const v = parsed.value;
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw invalid('hook input on stdin is not a JSON object');
  const obj = v as Record<string, unknown>;
  const event = own(obj, 'hook_event_name') ? obj.hook_event_name : undefined;
  const harness = choice === 'auto' ? detectHarness(obj) : choice;
  if (harness === undefined) {
    throw invalid(
      `unrecognized hook input (hook_event_name ${JSON.stringify(event ?? null)}): not a Claude Code or Codex Stop/SubagentStop, Gemini AfterAgent, Copilot agentStop or Cursor stop; pass --harness`,
    );
  }
  if (
    !EVENTS[harness].includes(typeof event === 'string' ? event : undefined) ||
    (event !== undefined && typeof event !== 'string')
  ) {
    const expected = EVENTS[harness]
      .filter((e) => e !== undefined)
      .map((e) => `"${e}"`)
      .join(' or ');
    throw invalid(
      `unknown hook_event_name ${JSON.stringify(event ?? null)} for --harness ${harness} (expected ${expected})`,
    );
  }
  // jitless: one parse per process; compiling zod's fast path for it would cost more than it saves.
  const h = (hookSchema ??= buildHookSchema()).parse(obj, { jitless: true });
  return fromRaw(harness, h);
}

/** The run id the contract is bound to: a subagent's `agent_id`, else the session (Cursor: the conversation). */
export function harnessValue(input: HookInput | undefined): string | undefined {
  if (input === undefined) return undefined;
  return input.subagent ? input.agentId : input.sessionId;
}

/** The input field that carries the run id, for messages. */
export function harnessField(input: HookInput | undefined): string {
  if (input === undefined || input.harness === 'claude' || input.harness === 'codex')
    return input?.subagent ? 'agent_id' : 'session_id';
  return { gemini: 'session_id', copilot: 'sessionId', cursor: 'conversation_id', opencode: 'session_id' }[
    input.harness
  ];
}

/** The turn's own transcript: a subagent's own, else the session's. */
export const ownTranscript = (input: HookInput | undefined): string | undefined => input?.transcriptPath;

/** How messages name the stopping agent. */
export function agentLabel(input: HookInput | undefined): string {
  if (input === undefined) return 'the agent';
  if (input.subagent) {
    const type = input.agentType ?? 'subagent';
    return input.agentId ? `${type} ${input.agentId}` : type;
  }
  return input.sessionId ? `session ${input.sessionId}` : 'the session';
}
