/**
 * Stop classification: each harness's stop vocabulary mapped to the stop classes. `truncation`: the harness cut the
 * turn (not the agent's fault). `violation`: the agent chose to stop. `abort`: the user stopped the turn (a Cursor
 * `aborted`), which allows. `unknown` fails closed.
 */
import { adapterOf } from '../harnesses/index.js';
import type { Harness } from './hook-input.js';

export type StopClass = 'truncation' | 'violation' | 'abort' | 'unknown';

const COMMON: Record<string, StopClass> = {
  max_tokens: 'truncation',
  tool_use: 'truncation',
  model_context_window_exceeded: 'truncation',
  end_turn: 'violation',
};

export function classifyStop(stopReason: string | undefined, harness: Harness = 'claude'): StopClass {
  if (stopReason === undefined) return 'unknown';
  const table = adapterOf(harness).stopClasses ?? COMMON;
  return Object.prototype.hasOwnProperty.call(table, stopReason) ? table[stopReason] : 'unknown';
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
 * The transcript is read only when the harness gave no stop reason, and what it says is recorded, never obeyed (the
 * gate classifies it `unknown`): an agent can write or provoke a `max_tokens` there, so only the harness excuses.
 */
export function resolveStopReason(
  flag: string | undefined,
  input: string | undefined,
  fromTranscript: () => string | undefined,
): ResolvedStopReason {
  if (given(flag)) return { reason: flag, source: 'input' };
  if (given(input)) return { reason: input, source: 'input' };
  const t = fromTranscript();
  return given(t) ? { reason: t, source: 'transcript' } : {};
}
