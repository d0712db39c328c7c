/**
 * Step 5.1 (valid STATE only): evidence_report must be a non-empty object carrying every list, in either spelling.
 * A non-object evidence_report was reported by FIELD_TYPE and gets nothing more here.
 */
import { EVIDENCE_LISTS, EVIDENCE_LISTS_UPPER, has, isEmptyObject, own } from '../../envelope/vocabulary.js';
import type { Rule } from '../context.js';
import { details } from '../details.js';

export const evidenceLists: Rule = (ctx) => {
  if (ctx.state === undefined) return;
  const raw = own(ctx.envelope, 'evidence_report');
  const report = ctx.evidenceReport;
  if (raw === undefined || raw === null || (report !== undefined && isEmptyObject(report))) {
    ctx.report('MISSING_FIELD', 'evidence_report', details.missing('evidence_report'));
    return;
  }
  if (report === undefined) return;
  EVIDENCE_LISTS.forEach((list, i) => {
    // Presence only: null counts as present (the FIELD_TYPE step judged the value already).
    if (!has(report, list) && !has(report, EVIDENCE_LISTS_UPPER[i])) {
      const path = `evidence_report.${list}`;
      ctx.report('MISSING_FIELD', path, details.missing(path));
    }
  });
};
