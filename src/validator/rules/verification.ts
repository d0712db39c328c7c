/**
 * Steps 5.2–5.4 (valid STATE only): the verification block. The type is a claim that owes a companion;
 * COMPLETE needs result "pass"; cited receipt ids must be well formed. Everything else in the block is free.
 */
import {
  foldType,
  isNonEmptyString,
  isObject,
  isReceiptId,
  isTruthy,
  own,
  tokenMatch,
  type JsonObject,
} from '../../envelope/vocabulary.js';
import type { Rule, RuleContext } from '../context.js';
import { details } from '../details.js';

const BASE = 'evidence_report.verification';
const PASS: ReadonlySet<string> = new Set(['pass']);

function verificationOf(ctx: RuleContext): JsonObject | undefined {
  if (ctx.evidenceReport === undefined) return undefined;
  const v = own(ctx.evidenceReport, 'verification');
  return isObject(v) ? v : undefined;
}

/** Step 5.2: at most one error. */
export const verificationCompanion: Rule = (ctx) => {
  const v = ctx.state === undefined ? undefined : verificationOf(ctx);
  if (v === undefined) return;
  const type = own(v, 'type');
  const word = foldType(type);
  if (word === '' || word === 'none') return;
  const hasCommand = isNonEmptyString(own(v, 'command'));
  const hasReviewed = isNonEmptyString(own(v, 'reviewed'));
  const hasHuman = isTruthy(own(v, 'requires_human'));
  switch (word) {
    case 'command':
    case 'code':
      if (!hasCommand) ctx.report('VERIFICATION_SHAPE', `${BASE}.command`, details.companion(word, 'command'));
      return;
    case 'semantic':
      if (!hasHuman)
        ctx.report('VERIFICATION_SHAPE', `${BASE}.requires_human`, details.companion(word, 'requires_human'));
      return;
    case 'self_review':
      if (!hasReviewed) ctx.report('VERIFICATION_SHAPE', `${BASE}.reviewed`, details.companion(word, 'reviewed'));
      return;
    default:
      if (!hasCommand && !hasReviewed && !hasHuman)
        ctx.report('VERIFICATION_SHAPE', BASE, details.unknownClaim(type, word));
  }
};

/** Step 5.3: COMPLETE only, at most one error. */
export const verificationResult: Rule = (ctx) => {
  if (ctx.state !== 'COMPLETE') return;
  const v = verificationOf(ctx);
  if (v === undefined) {
    ctx.report('VERIFICATION_RESULT', BASE, details.verificationMissing());
    return;
  }
  const result = own(v, 'result');
  if (!tokenMatch(result, PASS))
    ctx.report('VERIFICATION_RESULT', `${BASE}.result`, details.verificationResult(result));
};

/** Step 5.4: `receipt` first, then `receipts`; absent or null cites nothing. */
export const receiptRefs: Rule = (ctx) => {
  const v = ctx.state === undefined ? undefined : verificationOf(ctx);
  if (v === undefined) return;
  const receipt = own(v, 'receipt');
  if (receipt !== undefined && receipt !== null && !isReceiptId(receipt)) {
    ctx.report('RECEIPT_REF_SHAPE', `${BASE}.receipt`, details.receiptRef(`${BASE}.receipt`, receipt));
  }
  const receipts = own(v, 'receipts');
  if (receipts === undefined || receipts === null) return;
  if (!Array.isArray(receipts) || receipts.length === 0) {
    ctx.report('RECEIPT_REF_SHAPE', `${BASE}.receipts`, details.receiptRef(`${BASE}.receipts`, receipts));
    return;
  }
  for (let i = 0; i < receipts.length; i++) {
    const id: unknown = receipts[i];
    if (!isReceiptId(id))
      ctx.report('RECEIPT_REF_SHAPE', `${BASE}.receipts[${i}]`, details.receiptRef(`${BASE}.receipts[${i}]`, id));
  }
};
