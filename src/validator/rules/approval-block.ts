/**
 * Step 6 (APPROVAL_REQUEST only): the block must be a non-empty object with a non-empty exact_content. At most one
 * error; a non-object block stacks with its FIELD_TYPE. The rest of the block (approval_id included) is open here;
 * the approval id is judged by the cross-check (full-verdict.ts).
 */
import { isEmptyObject, isNonEmptyString, isObject, own } from '../../envelope/vocabulary.js';
import type { Rule } from '../context.js';
import { details } from '../details.js';

export const approvalBlock: Rule = (ctx) => {
  if (ctx.state !== 'APPROVAL_REQUEST') return;
  const block = own(ctx.envelope, 'approval_request');
  if (!isObject(block) || isEmptyObject(block)) {
    ctx.report('APPROVAL_REQUEST_SHAPE', 'approval_request', details.approvalBlock());
    return;
  }
  const content = own(block, 'exact_content');
  if (!isNonEmptyString(content)) {
    ctx.report('APPROVAL_REQUEST_SHAPE', 'approval_request.exact_content', details.approvalExactContent(content));
  }
};
