/**
 * Step 7: on a turn marked consolidation work (options.consolidation), any valid state but IN_PROGRESS needs a
 * complete consolidation_report. Unmarked turns keep the block open.
 */
import {
  CONSOLIDATION_LISTS,
  has,
  isEmptyObject,
  isNonEmptyString,
  isObject,
  own,
  OWNERSHIP_SET,
  tokenMatch,
} from '../../envelope/vocabulary.js';
import type { Rule } from '../context.js';
import { details } from '../details.js';

const CODE = 'CONSOLIDATION_REPORT_SHAPE';

export const consolidationReport: Rule = (ctx) => {
  if (!ctx.consolidation || ctx.state === undefined || ctx.state === 'IN_PROGRESS') return;
  const block = own(ctx.envelope, 'consolidation_report');
  if (!isObject(block) || isEmptyObject(block)) {
    ctx.report(CODE, 'consolidation_report', details.consolidation(undefined));
    return;
  }
  if (!tokenMatch(own(block, 'ownership_assessment'), OWNERSHIP_SET)) {
    ctx.report(CODE, 'consolidation_report.ownership_assessment', details.consolidation('ownership_assessment'));
  }
  for (const list of CONSOLIDATION_LISTS) {
    if (!Array.isArray(own(block, list))) ctx.report(CODE, `consolidation_report.${list}`, details.consolidation(list));
  }
  const next = own(block, 'next_best_agent');
  if (!has(block, 'next_best_agent') || (next !== null && !isNonEmptyString(next))) {
    ctx.report(CODE, 'consolidation_report.next_best_agent', details.consolidation('next_best_agent'));
  }
};
