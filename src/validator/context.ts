/**
 * What every rule sees: the envelope (already known to be an object), the two closed sub-blocks read once, the
 * derived STATE and the options. Rules only read; they report errors through `report`, in call order.
 */
import { isObject, own, validState, type AgentState, type JsonObject } from '../envelope/vocabulary.js';
import type { ErrorCode, ValidationError, ValidationSource } from './types.js';

export interface RuleContext {
  readonly envelope: JsonObject;
  /** `envelope.agent_status` when it is an object, else undefined. */
  readonly agentStatus: JsonObject | undefined;
  /** `envelope.evidence_report` when it is an object, else undefined. */
  readonly evidenceReport: JsonObject | undefined;
  /** STATE: the valid normalized agent state, or undefined for none. */
  readonly state: AgentState | undefined;
  readonly consolidation: boolean;
  readonly source: ValidationSource;
  report(code: ErrorCode, path: string, detail: string): void;
}

/** A rule is one step (or sub-step) of the normative check order. */
export type Rule = (ctx: RuleContext) => void;

export function createContext(
  envelope: JsonObject,
  consolidation: boolean,
  source: ValidationSource,
  errors: ValidationError[],
): RuleContext {
  const status = own(envelope, 'agent_status');
  const evidence = own(envelope, 'evidence_report');
  const agentStatus = isObject(status) ? status : undefined;
  return {
    envelope,
    agentStatus,
    evidenceReport: isObject(evidence) ? evidence : undefined,
    // An empty agent_status has no agent_state, so "object" is enough here.
    state: agentStatus === undefined ? undefined : validState(own(agentStatus, 'agent_state')),
    consolidation,
    source,
    report(code, path, detail) {
      errors.push({ code, path, detail });
    },
  };
}
