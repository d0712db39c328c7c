/**
 * The Claude Code Stop / SubagentStop hook JSON (dispatch-and-gate.md §4.1). Only the fields the gate uses are
 * read; `last_assistant_message` and `stop_hook_active` are ignored on purpose (message text is never a verdict
 * input, and the circuit breaker bounds the loop). Any problem is HOOK_INPUT_INVALID: the gate fails open.
 */
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

/** A non-blank string field, else undefined (blank or any other type counts as absent). */
function text(obj: Record<string, unknown>, key: string): string | undefined {
  const v = Object.hasOwn(obj, key) ? obj[key] : undefined;
  return typeof v === 'string' && v.trim() !== '' ? v : undefined;
}

/** Parses the hook JSON. Throws HOOK_INPUT_INVALID (the gate then exits 1, "stop not gated"). */
export function parseHookInput(raw: string): HookInput {
  if (raw.trim() === '') throw invalid('no hook JSON on stdin (pass --draft-id ID to gate without one)');
  const parsed = tryParseJson(raw);
  if (!parsed.ok) throw invalid(`hook input on stdin is not valid JSON: ${parsed.message}`);
  const v = parsed.value;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw invalid('hook input on stdin is not a JSON object');
  const obj = v as Record<string, unknown>;
  const event = obj.hook_event_name;
  if (event !== 'Stop' && event !== 'SubagentStop') {
    throw invalid(`unknown hook_event_name ${JSON.stringify(event ?? null)} (expected "Stop" or "SubagentStop")`);
  }
  const input: HookInput = {
    event,
    sessionId: text(obj, 'session_id'),
    stopReason: text(obj, 'stop_reason'),
    cwd: text(obj, 'cwd'),
  };
  if (event === 'SubagentStop') {
    input.agentId = text(obj, 'agent_id');
    input.agentType = text(obj, 'agent_type');
    input.agentTranscriptPath = text(obj, 'agent_transcript_path');
  } else {
    input.transcriptPath = text(obj, 'transcript_path');
  }
  return input;
}

/** The harness value (§4.1): `agent_id` for SubagentStop, `session_id` for Stop; blank or absent → none. */
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
