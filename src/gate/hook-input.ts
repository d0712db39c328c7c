/**
 * The Claude Code Stop / SubagentStop hook JSON. Only the fields the gate uses are
 * read; `last_assistant_message` and `stop_hook_active` are ignored on purpose (message text is never a verdict
 * input, and the circuit breaker bounds the loop). The fields are read through a zod/mini schema.
 * Any problem is HOOK_INPUT_INVALID: the gate fails open.
 */
import * as z from 'zod/mini';
import { EXIT, HandoffError } from '../errors.js';
import { tryParseJson } from '../json.js';

export type HookEvent = 'Stop' | 'SubagentStop';

export interface HookInput {
  event: HookEvent;
  sessionId?: string;
  /** SubagentStop: the subagent's run id. */
  agentId?: string;
  /** SubagentStop: a label for messages only. */
  agentType?: string;
  /** SubagentStop: the subagent's own transcript (lane 3, stop-reason fallback). */
  agentTranscriptPath?: string;
  /** Stop: the session's transcript. Never used for SubagentStop (it is the parent's transcript there). */
  transcriptPath?: string;
  stopReason?: string;
  cwd?: string;
}

const invalid = (message: string): HandoffError => new HandoffError('HOOK_INPUT_INVALID', EXIT.REJECTED, message);

/** A non-blank string field; blank, absent or any other type reads as absent (never a refusal). */
const text = z.catch(z.optional(z.string().check(z.regex(/\S/))), undefined);

/** The hook JSON the gate reads: an object with a known event; other keys are ignored. Built on first use. */
let hookSchema: ReturnType<typeof buildHookSchema> | undefined;
function buildHookSchema() {
  return z.looseObject({
    hook_event_name: z.enum(['Stop', 'SubagentStop']),
    session_id: text,
    stop_reason: text,
    cwd: text,
    agent_id: text,
    agent_type: text,
    agent_transcript_path: text,
    transcript_path: text,
  });
}

/** Parses the hook JSON. Throws HOOK_INPUT_INVALID (the gate then exits 1, "stop not gated"). */
export function parseHookInput(raw: string): HookInput {
  if (raw.trim() === '') throw invalid('no hook JSON on stdin (pass --draft-id ID to gate without one)');
  const parsed = tryParseJson(raw);
  if (!parsed.ok) throw invalid(`hook input on stdin is not valid JSON: ${parsed.message}`);
  const v = parsed.value;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw invalid('hook input on stdin is not a JSON object');
  // jitless: one parse per process; compiling zod's fast path for it would cost more than it saves.
  const hook = (hookSchema ??= buildHookSchema()).safeParse(v, { jitless: true });
  if (!hook.success) {
    // The only field that can fail is the event: every other field reads as absent instead.
    const event = (v as Record<string, unknown>).hook_event_name;
    throw invalid(`unknown hook_event_name ${JSON.stringify(event ?? null)} (expected "Stop" or "SubagentStop")`);
  }
  const h = hook.data;
  const input: HookInput = { event: h.hook_event_name, sessionId: h.session_id, stopReason: h.stop_reason, cwd: h.cwd };
  if (input.event === 'SubagentStop') {
    input.agentId = h.agent_id;
    input.agentType = h.agent_type;
    input.agentTranscriptPath = h.agent_transcript_path;
  } else {
    input.transcriptPath = h.transcript_path;
  }
  return input;
}

/** The harness value: `agent_id` for SubagentStop, `session_id` for Stop; blank or absent → none. */
export function harnessValue(input: HookInput | undefined): string | undefined {
  if (input === undefined) return undefined;
  return input.event === 'SubagentStop' ? input.agentId : input.sessionId;
}

/** The turn's own transcript: the subagent's for SubagentStop, the session's for Stop. */
export function ownTranscript(input: HookInput | undefined): string | undefined {
  if (input === undefined) return undefined;
  return input.event === 'SubagentStop' ? input.agentTranscriptPath : input.transcriptPath;
}

/** How messages name the stopping agent. */
export function agentLabel(input: HookInput | undefined): string {
  if (input === undefined) return 'the agent';
  if (input.event === 'SubagentStop') {
    const type = input.agentType ?? 'subagent';
    return input.agentId ? `${type} ${input.agentId}` : type;
  }
  return input.sessionId ? `session ${input.sessionId}` : 'the session';
}
