/**
 * The pure, store-free part of the receipt checks: which receipts an envelope cites, whether its
 * verification claims a command, and RECEIPT_REQUIRED. Kept apart from checks.ts (which loads the store, hashing and
 * git) so the write verbs can foresee RECEIPT_REQUIRED without loading any of that.
 */
import { foldType, isObject, isReceiptId, validState } from '../envelope/vocabulary.js';

export interface CitedReceipt {
  id: string;
  path: string;
}

export interface RequiredIssue {
  code: 'RECEIPT_REQUIRED';
  path: string;
  detail: string;
}

const VERIFICATION = 'evidence_report.verification';
export const RECEIPT_PATH = `${VERIFICATION}.receipt`;
const REQUIRING_STATES: ReadonlySet<string> = new Set(['COMPLETE', 'NEEDS_VERIFICATION']);
const COMMAND_TYPES: ReadonlySet<string> = new Set(['command', 'code']);

export function verificationOf(envelope: unknown): Record<string, unknown> | undefined {
  if (!isObject(envelope)) return undefined;
  const report = envelope.evidence_report;
  if (!isObject(report)) return undefined;
  const v = report.verification;
  return isObject(v) ? v : undefined;
}

/** The cited receipts: `receipt`, then each element of `receipts`, in order. */
export function citedReceipts(envelope: unknown): CitedReceipt[] {
  const v = verificationOf(envelope);
  if (v === undefined) return [];
  const out: CitedReceipt[] = [];
  if (isReceiptId(v.receipt)) out.push({ id: v.receipt, path: RECEIPT_PATH });
  if (Array.isArray(v.receipts)) {
    v.receipts.forEach((id, i) => {
      if (isReceiptId(id)) out.push({ id, path: `${VERIFICATION}.receipts[${i}]` });
    });
  }
  return out;
}

export function claimsCommand(v: Record<string, unknown> | undefined): boolean {
  const t = v === undefined ? '' : foldType(v.type);
  return t !== null && COMMAND_TYPES.has(t);
}

export const RECEIPT_REQUIRED_DETAIL =
  'the dispatch requires a receipt for a command/code claim: run the check with `handoff evidence run -- CMD` ' +
  '(or `handoff contract verify`) and cite the printed R-… id in evidence_report.verification.receipt';

/** Check 7: the turn requires a receipt, closes COMPLETE or NEEDS_VERIFICATION on a command/code claim, cites none. */
export function requiredIssue(
  envelope: unknown,
  cited: readonly CitedReceipt[],
  requireReceipt: boolean,
): RequiredIssue[] {
  if (!requireReceipt || cited.length > 0) return [];
  const status = isObject(envelope) && isObject(envelope.agent_status) ? envelope.agent_status : {};
  const state = validState(status.agent_state);
  if (state === undefined || !REQUIRING_STATES.has(state) || !claimsCommand(verificationOf(envelope))) return [];
  return [{ code: 'RECEIPT_REQUIRED', path: RECEIPT_PATH, detail: RECEIPT_REQUIRED_DETAIL }];
}
