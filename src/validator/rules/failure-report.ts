/**
 * Step 8: failure_report, on every state. Absent or null is never checked; anything else is checked in full
 * (`""`, `false` and `0` included), and a non-object stops at one error.
 */
import { isNonEmptyString, isObject, own, SEVERITY_SET, tokenMatch } from '../../envelope/vocabulary.js';
import type { Rule } from '../context.js';
import { details } from '../details.js';

const CODE = 'FAILURE_REPORT_SHAPE';

export const failureReport: Rule = (ctx) => {
  const block = own(ctx.envelope, 'failure_report');
  if (block === undefined || block === null) return;
  if (!isObject(block)) {
    ctx.report(CODE, 'failure_report', details.failureReport(undefined));
    return;
  }
  for (const key of ['attempted', 'symptom']) {
    if (!isNonEmptyString(own(block, key))) ctx.report(CODE, `failure_report.${key}`, details.failureReport(key));
  }
  const evidence = own(block, 'evidence');
  // Only string elements count; `[5, "x"]` passes on its "x".
  if (!Array.isArray(evidence) || !evidence.some(isNonEmptyString)) {
    ctx.report(CODE, 'failure_report.evidence', details.failureReport('evidence'));
  }
  const severity = own(block, 'severity');
  if (severity !== undefined && severity !== null && !tokenMatch(severity, SEVERITY_SET)) {
    ctx.report(CODE, 'failure_report.severity', details.failureReport('severity'));
  }
};
