/**
 * Step 4.5: COMPLETE's constraints on next_action and pending_steps. A missing field was already reported as
 * MISSING_FIELD (no second code); a non-array pending_steps only gets its FIELD_TYPE; a non-string next_action
 * stacks (it can never be "done").
 */
import { isBlank, own, tokenMatch } from '../../envelope/vocabulary.js';
import type { Rule } from '../context.js';
import { details } from '../details.js';

const DONE: ReadonlySet<string> = new Set(['done']);

export const completeShape: Rule = (ctx) => {
  if (ctx.state !== 'COMPLETE' || ctx.agentStatus === undefined) return;
  const nextAction = own(ctx.agentStatus, 'next_action');
  if (!isBlank(nextAction) && !tokenMatch(nextAction, DONE)) {
    ctx.report('COMPLETE_SHAPE', 'agent_status.next_action', details.completeNextAction(nextAction));
  }
  const pending = own(ctx.agentStatus, 'pending_steps');
  if (Array.isArray(pending) && pending.length > 0) {
    ctx.report('COMPLETE_SHAPE', 'agent_status.pending_steps', details.completePendingSteps());
  }
};
