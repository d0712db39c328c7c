/** Step 9: work_phase, when present and non-null, must token-match a phase. Independent of the agent state. */
import { own, PHASE_SET, tokenMatch } from '../../envelope/vocabulary.js';
import type { Rule } from '../context.js';
import { details } from '../details.js';

export const workPhase: Rule = (ctx) => {
  const phase = own(ctx.envelope, 'work_phase');
  if (phase === undefined || phase === null || tokenMatch(phase, PHASE_SET)) return;
  ctx.report('WORK_PHASE_SHAPE', 'work_phase', details.workPhase(phase));
};
