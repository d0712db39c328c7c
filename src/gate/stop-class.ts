/** Stop classification. */

export type StopClass = 'truncation' | 'violation' | 'unknown';

const TRUNCATION: ReadonlySet<string> = new Set(['max_tokens', 'tool_use', 'model_context_window_exceeded']);

/** `truncation`: the harness cut the turn. `violation`: the agent chose to stop. `unknown` fails closed. */
export function classifyStop(stopReason: string | undefined): StopClass {
  if (stopReason === undefined) return 'unknown';
  if (TRUNCATION.has(stopReason)) return 'truncation';
  return stopReason === 'end_turn' ? 'violation' : 'unknown';
}

/**
 * The stop reason: `--stop-reason`, else stdin `stop_reason`, else the transcript's last assistant line (read
 * lazily: the transcript is only touched when the earlier sources say nothing). Blank values count as absent.
 */
export function resolveStopReason(
  flag: string | undefined,
  stdin: string | undefined,
  fromTranscript: () => string | undefined,
): string | undefined {
  for (const v of [flag, stdin]) if (v !== undefined && v.trim() !== '') return v;
  return fromTranscript();
}
