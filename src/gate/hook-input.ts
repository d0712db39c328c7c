/**
 * The stop hook's input, per harness: Claude Code and Codex CLI (`Stop` / `SubagentStop`), Gemini CLI (`AfterAgent`),
 * Copilot CLI (`agentStop`, camelCase keys) and Cursor (`stop`). Each shape is read into one HookInput; only the fields
 * the gate uses are read, through a zod/mini schema. The last assistant message is never read (message text is never
 * a verdict input). Any problem is HOOK_INPUT_INVALID: the gate fails open (exit 1, "stop not gated").
 */
import * as z from 'zod/mini';
import { HandoffError } from '../errors.js';
import { tryParseJson } from '../json.js';
import type { StopInput } from '../harnesses/adapter.js';
import { adapterOf, recognize, type Harness } from '../harnesses/index.js';

export { HARNESSES, type Harness } from '../harnesses/index.js';
export type HarnessChoice = Harness | 'auto';

export interface HookInput extends StopInput {
  harness: Harness;
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
  const event = Object.prototype.hasOwnProperty.call(obj, 'hook_event_name') ? obj.hook_event_name : undefined;
  const harness = choice === 'auto' ? recognize(obj, 'stop') : choice;
  if (harness === undefined) {
    throw invalid(
      `unrecognized hook input (hook_event_name ${JSON.stringify(event ?? null)}): not a Claude Code or Codex Stop/SubagentStop, Gemini AfterAgent, Copilot agentStop or Cursor stop; pass --harness`,
    );
  }
  const events = adapterOf(harness).stopEvents;
  if (
    !events.includes(typeof event === 'string' ? event : undefined) ||
    (event !== undefined && typeof event !== 'string')
  ) {
    const expected = events
      .filter((e) => e !== undefined)
      .map((e) => `"${e}"`)
      .join(' or ');
    throw invalid(
      `unknown hook_event_name ${JSON.stringify(event ?? null)} for --harness ${harness} (expected ${expected})`,
    );
  }
  // jitless: one parse per process; compiling zod's fast path for it would cost more than it saves.
  const h = (hookSchema ??= buildHookSchema()).parse(obj, { jitless: true });
  return { harness, ...adapterOf(harness).read(h) };
}

/** The run id the contract is bound to: a subagent's `agent_id`, else the session (Cursor: the conversation). */
export function harnessValue(input: HookInput | undefined): string | undefined {
  if (input === undefined) return undefined;
  return input.subagent ? input.agentId : input.sessionId;
}

/** The input field that carries the run id, for messages. */
export function harnessField(input: HookInput | undefined): string {
  if (input === undefined) return 'session_id';
  return adapterOf(input.harness).runIdField(input.subagent);
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
