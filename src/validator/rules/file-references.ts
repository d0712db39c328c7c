/**
 * Step 10: object elements of files_checked, then FILES_CHECKED, must be exactly {path, commit}. Other
 * elements are never inspected; git is never consulted. Checked on every state.
 */
import { isCommit, isNonEmptyString, isObject, own, type JsonObject } from '../../envelope/vocabulary.js';
import type { Rule, RuleContext } from '../context.js';
import { details } from '../details.js';

const CODE = 'FILE_REFERENCE_SHAPE';

function checkList(ctx: RuleContext, report: JsonObject, key: string): void {
  const list = own(report, key);
  if (!Array.isArray(list)) return;
  for (let i = 0; i < list.length; i++) {
    const element: unknown = list[i];
    if (!isObject(element)) continue;
    const base = `evidence_report.${key}[${i}]`;
    if (!isNonEmptyString(own(element, 'path')))
      ctx.report(CODE, `${base}.path`, details.fileReference(`${base}.path`, 'path'));
    if (!isCommit(own(element, 'commit')))
      ctx.report(CODE, `${base}.commit`, details.fileReference(`${base}.commit`, 'commit'));
    for (const extra of Object.keys(element)) {
      if (extra !== 'path' && extra !== 'commit') {
        ctx.report(CODE, `${base}.${extra}`, details.fileReference(`${base}.${extra}`, extra));
      }
    }
  }
}

export const fileReferences: Rule = (ctx) => {
  if (ctx.evidenceReport === undefined) return;
  checkList(ctx, ctx.evidenceReport, 'files_checked');
  checkList(ctx, ctx.evidenceReport, 'FILES_CHECKED');
};
