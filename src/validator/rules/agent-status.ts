/**
 * Step 4.1–4.4: the agent_status block and its four fields. Never suppressed by STATE (it is what sets STATE).
 * A non-object agent_status was already reported by FIELD_TYPE and skips everything here.
 */
import { has, isAgentId, isBlank, isEmptyObject, normalizeState, own, validState } from '../../envelope/vocabulary.js';
import type { Rule } from '../context.js';
import { details } from '../details.js';

export const agentStatus: Rule = (ctx) => {
  const raw = own(ctx.envelope, 'agent_status');
  if (raw === undefined || raw === null || (ctx.agentStatus !== undefined && isEmptyObject(ctx.agentStatus))) {
    ctx.report('MISSING_FIELD', 'agent_status', details.missing('agent_status'));
    return;
  }
  const status = ctx.agentStatus;
  if (status === undefined) return;

  const state = own(status, 'agent_state');
  if (isBlank(state)) {
    ctx.report('MISSING_FIELD', 'agent_status.agent_state', details.missing('agent_status.agent_state'));
  } else if (typeof state === 'string' && validState(state) === undefined) {
    ctx.report('PLAN_STATUS', 'agent_status.agent_state', details.planStatus(state, normalizeState(state)));
  }

  const agentId = own(status, 'agent_id');
  if (isBlank(agentId)) {
    ctx.report('MISSING_FIELD', 'agent_status.agent_id', details.missing('agent_status.agent_id'));
  } else if (!isAgentId(agentId)) {
    ctx.report('AGENT_ID_FORMAT', 'agent_status.agent_id', details.agentIdFormat(agentId));
  }

  if (!has(status, 'pending_steps')) {
    ctx.report('MISSING_FIELD', 'agent_status.pending_steps', details.missing('agent_status.pending_steps'));
  }

  if (isBlank(own(status, 'next_action'))) {
    ctx.report('MISSING_FIELD', 'agent_status.next_action', details.missing('agent_status.next_action'));
  }
};
