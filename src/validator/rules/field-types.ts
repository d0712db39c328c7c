/**
 * Step 3: FIELD_TYPE on the declared fields, present and non-null values only. Never suppressed by STATE. The fields
 * and their types are read from the envelope's declaration (src/envelope/schema.ts, through TYPED_FIELDS).
 */
import { jsonTypeName, own, TYPED_FIELDS, type DeclaredType, type JsonObject } from '../../envelope/vocabulary.js';
import type { Rule, RuleContext } from '../context.js';
import { details } from '../details.js';

function checkFields(
  ctx: RuleContext,
  obj: JsonObject,
  prefix: string,
  fields: readonly (readonly [string, DeclaredType])[],
): void {
  for (const [key, expected] of fields) {
    const value = own(obj, key);
    if (value === undefined || value === null) continue;
    const received = jsonTypeName(value);
    if (received !== expected)
      ctx.report('FIELD_TYPE', prefix + key, details.fieldType(prefix + key, expected, received, value));
  }
}

export const fieldTypes: Rule = (ctx) => {
  checkFields(ctx, ctx.envelope, '', TYPED_FIELDS.root);
  if (ctx.agentStatus !== undefined) checkFields(ctx, ctx.agentStatus, 'agent_status.', TYPED_FIELDS.agent_status);
  if (ctx.evidenceReport !== undefined)
    checkFields(ctx, ctx.evidenceReport, 'evidence_report.', TYPED_FIELDS.evidence_report);
};
