/**
 * The circuit breaker's per-turn key, computed from the input only, before the verdict, so an accepted and a rejected
 * stop of the same turn use the same key. It is the turn where the harness names one (a Codex `turn_id`, a subagent's
 * `agent_id`); elsewhere the session, whose trip ends at the next stop of a new turn (`turnScoped` false: see the
 * breaker). It never falls back to the agent type: a key shared between agents would trip one on another's rejections.
 */
import { adapterOf } from '../harnesses/index.js';
import type { HookInput } from './hook-input.js';

export interface BreakerKey {
  key: string;
  /** The key names one turn; false: a session key, whose trip a new turn's first stop ends. */
  turnScoped: boolean;
}

export function breakerKey(draftIdFlag: string | undefined, input: HookInput | undefined): BreakerKey | undefined {
  if (draftIdFlag !== undefined) return { key: `draft:${draftIdFlag}`, turnScoped: true };
  if (input === undefined) return undefined;
  const session = input.sessionId ?? '';
  // Each harness's keys carry its adapter's prefix, so two never share a key.
  const prefix = adapterOf(input.harness).breakerPrefix;
  if (input.subagent) {
    if (input.agentId !== undefined) return { key: `${prefix}subagent:${session}:${input.agentId}`, turnScoped: true };
    if (input.transcriptPath !== undefined)
      return { key: `${prefix}subagent:${session}:transcript:${input.transcriptPath}`, turnScoped: true };
    return undefined;
  }
  if (input.sessionId === undefined) return undefined;
  if (input.turnId !== undefined) return { key: `${prefix}turn:${input.sessionId}:${input.turnId}`, turnScoped: true };
  return { key: `${prefix}session:${input.sessionId}`, turnScoped: false };
}

/** This stop starts a new turn (the harness is not continuing after a block), so a session key's trip ends. */
export const newTurn = (input: HookInput | undefined): boolean => input?.stopHookActive === false;
