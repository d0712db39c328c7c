/**
 * Step 2: closed-level key vocabulary. A key not accepted at its level is MISPLACED_KEY when it has a home
 * elsewhere, else UNKNOWN_FIELD with a nearest-match suggestion. Each level in its own key order.
 */
import { ACCEPTED_KEYS, HOMES, SUGGESTED_KEYS, type JsonObject, type Level } from '../../envelope/vocabulary.js';
import type { Rule, RuleContext } from '../context.js';
import { details } from '../details.js';
import { nearestKey } from '../similarity.js';

function checkLevel(ctx: RuleContext, obj: JsonObject, level: Level): void {
  const accepted = ACCEPTED_KEYS[level];
  const prefix = level === 'root' ? '' : `${level}.`;
  for (const key of Object.keys(obj)) {
    if (accepted.has(key)) continue;
    const home = HOMES.get(key);
    if (home !== undefined && home !== level) {
      ctx.report('MISPLACED_KEY', prefix + key, details.misplaced(key, level, home));
    } else {
      const allowed = SUGGESTED_KEYS[level];
      ctx.report('UNKNOWN_FIELD', prefix + key, details.unknown(key, level, nearestKey(key, allowed), allowed));
    }
  }
}

export const keyVocabulary: Rule = (ctx) => {
  checkLevel(ctx, ctx.envelope, 'root');
  if (ctx.agentStatus !== undefined) checkLevel(ctx, ctx.agentStatus, 'agent_status');
  if (ctx.evidenceReport !== undefined) checkLevel(ctx, ctx.evidenceReport, 'evidence_report');
};
