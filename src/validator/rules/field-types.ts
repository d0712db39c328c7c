/**
 * Step 3: FIELD_TYPE on the declared fields, present and non-null values only. Never suppressed by STATE.
 */
import { EVIDENCE_LISTS, jsonTypeName, own, type JsonObject, type JsonTypeName } from '../../envelope/vocabulary.js';
import type { Rule, RuleContext } from '../context.js';
import { details } from '../details.js';

type Expected = Extract<JsonTypeName, 'object' | 'array' | 'string'>;

const ROOT_FIELDS: readonly [string, Expected][] = [
  ['agent_status', 'object'],
  ['evidence_report', 'object'],
  ['consolidation_report', 'object'],
  ['approval_request', 'object'],
  ['report_prose', 'string'],
];
const STATUS_FIELDS: readonly [string, Expected][] = [
  ['agent_state', 'string'],
  ['agent_id', 'string'],
  ['pending_steps', 'array'],
  ['next_action', 'string'],
];
const EVIDENCE_FIELDS: readonly [string, Expected][] = [
  ...EVIDENCE_LISTS.map((k): [string, Expected] => [k, 'array']),
  ['verification', 'object'],
];

function checkFields(ctx: RuleContext, obj: JsonObject, prefix: string, fields: readonly [string, Expected][]): void {
  for (const [key, expected] of fields) {
    const value = own(obj, key);
    if (value === undefined || value === null) continue;
    const received = jsonTypeName(value);
    if (received !== expected) ctx.report('FIELD_TYPE', prefix + key, details.fieldType(prefix + key, expected, received));
  }
}

export const fieldTypes: Rule = (ctx) => {
  checkFields(ctx, ctx.envelope, '', ROOT_FIELDS);
  if (ctx.agentStatus !== undefined) checkFields(ctx, ctx.agentStatus, 'agent_status.', STATUS_FIELDS);
  if (ctx.evidenceReport !== undefined) checkFields(ctx, ctx.evidenceReport, 'evidence_report.', EVIDENCE_FIELDS);
};
