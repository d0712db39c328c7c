/** Stop classification (dispatch-and-gate.md §4.4). */

export type StopClass = 'truncation' | 'violation' | 'unknown';

const TRUNCATION: ReadonlySet<string> = new Set(['max_tokens', 'tool_use', 'model_context_window_exceeded']);

/** `truncation`: the harness cut the turn. `violation`: the agent chose to stop. `unknown` fails closed. */
export function classifyStop(stopReason: string | undefined): StopClass {
  if (stopReason === undefined) return 'unknown';
  if (TRUNCATION.has(stopReason)) return 'truncation';
  return stopReason === 'end_turn' ? 'violation' : 'unknown';
}

/** Where the stop reason came from: the hook's own input (or the hook command's --stop-reason), or the transcript. */
export type StopReasonSource = 'input' | 'transcript';

export interface ResolvedStopReason {
  reason?: string;
  source?: StopReasonSource;
}

const given = (v: string | undefined): v is string => v !== undefined && v.trim() !== '';

/**
 * The stop reason: `--stop-reason`, else the hook input's own stop reason, else the transcript's last assistant line.
 * The transcript is read only when the harness gave no stop reason: the agent can write its transcript, so its
 * word never overrides the harness's (and a truncation excuses only a turn that has a contract anyway).
 */
export function resolveStopReason(flag: string | undefined, input: string | undefined, fromTranscript: () => string | undefined): ResolvedStopReason {
  if (given(flag)) return { reason: flag, source: 'input' };
  if (given(input)) return { reason: input, source: 'input' };
  const t = fromTranscript();
  return given(t) ? { reason: t, source: 'transcript' } : {};
}
