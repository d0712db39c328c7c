/**
 * The circuit breaker's per-turn key, computed from the input only, before the
 * verdict, so an accepted and a rejected stop of the same turn use the same key. It never falls back to the agent
 * type: a key shared between agents would trip one agent on another's rejections.
 */
import type { HookInput } from './hook-input.js';

export function breakerKey(draftIdFlag: string | undefined, input: HookInput | undefined): string | undefined {
  if (draftIdFlag !== undefined) return `draft:${draftIdFlag}`;
  if (input === undefined) return undefined;
  const session = input.sessionId ?? '';
  if (input.event === 'SubagentStop') {
    if (input.agentId !== undefined) return `subagent:${session}:${input.agentId}`;
    if (input.agentTranscriptPath !== undefined) return `subagent:${session}:transcript:${input.agentTranscriptPath}`;
    return undefined;
  }
  return input.sessionId !== undefined ? `session:${input.sessionId}` : undefined;
}
