/** Finalize steps 5–8: the single refusals, in order. Pure. */
import { isObject, own, type JsonObject } from '../envelope/vocabulary.js';
import { jsonQuote } from '../errors.js';
import { agentPrefix } from '../ids.js';

export interface Refusal {
  code: 'AGENT_ID_MISMATCH' | 'CLOSING_STATE_REQUIRED' | 'PLAN_TASK_CONFLICT' | 'BLIND_VERIFICATION_REQUIRED';
  message: string;
  /** Extra JSON fields of the refusal object. */
  data: Record<string, unknown>;
}

export interface RefusalInput {
  tipId: string;
  /** The step-3 envelope (canonical), already judged valid by the full verdict. */
  envelope: JsonObject;
  /** The row chain's binding, null when unbound or when there is no row. */
  binding: string | null;
  /** `--plan-task-id`, if given. */
  planTaskFlag: string | undefined;
}

export const envelopeState = (envelope: JsonObject): string | undefined => {
  const status = own(envelope, 'agent_status');
  const state = isObject(status) ? own(status, 'agent_state') : undefined;
  return typeof state === 'string' ? state : undefined;
};

/** Step 5: `agent_status.agent_id` must be the draft id's agent prefix. */
export function agentIdRefusal(tipId: string, envelope: JsonObject): Refusal | undefined {
  const status = own(envelope, 'agent_status');
  const agentId = isObject(status) ? own(status, 'agent_id') : undefined;
  const prefix = agentPrefix(tipId);
  if (agentId === prefix) return undefined;
  return {
    code: 'AGENT_ID_MISMATCH',
    message: `agent_status.agent_id ${jsonQuote(agentId)} is not the agent of draft ${tipId} (${prefix}); set it to ${prefix}`,
    data: { agent_id: agentId ?? null, expected_agent_id: prefix },
  };
}

/** Step 8: a turn bound to a plan task (`bound` non-null) cannot close COMPLETE. */
export function blindVerificationRefusal(state: string | undefined, bound: string | null): Refusal | undefined {
  if (state !== 'COMPLETE' || bound === null) return undefined;
  return {
    code: 'BLIND_VERIFICATION_REQUIRED',
    message: `this turn is bound to plan task ${jsonQuote(bound)}: a bound producer closes NEEDS_VERIFICATION and proposes evidence_report.verification.result; a verifier dispatched with --parent-handoff-id <this row> judges it`,
    data: { reason: 'blind_verification_required', plan_task_id: bound },
  };
}

/** The first refusal of steps 5–8, or undefined when the finalize may proceed. */
export function firstRefusal(r: RefusalInput): Refusal | undefined {
  const identity = agentIdRefusal(r.tipId, r.envelope);
  if (identity !== undefined) return identity;
  const state = envelopeState(r.envelope);
  if (state === 'IN_PROGRESS') {
    return {
      code: 'CLOSING_STATE_REQUIRED',
      message:
        'agent_state is IN_PROGRESS; finalize persists a closing state only: set agent_status.agent_state to COMPLETE, BLOCKED, NEEDS_INPUT, NEEDS_VERIFICATION or APPROVAL_REQUEST (last)',
      data: { reason: 'closing_state_required' },
    };
  }
  if (r.planTaskFlag !== undefined && r.binding !== null && r.planTaskFlag !== r.binding) {
    return {
      code: 'PLAN_TASK_CONFLICT',
      message: `--plan-task-id ${jsonQuote(r.planTaskFlag)} differs from the plan task this contract is bound to (${jsonQuote(r.binding)}); drop the flag or pass the bound value`,
      data: { plan_task_id: r.binding, requested_plan_task_id: r.planTaskFlag },
    };
  }
  return blindVerificationRefusal(state, r.binding ?? r.planTaskFlag ?? null);
}
