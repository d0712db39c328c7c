/**
 * Finalize step 9b, the receipt checks: the seam between finalize and
 * src/receipts/checks.ts. It runs outside the write transaction; the receipts module is loaded only when the
 * envelope cites a receipt or the turn requires one, so a plain finalize pays nothing for it. The rows and their
 * outputs are read through the Store (either backend) by the same check the stop gate and `evidence show --verify`
 * use.
 */
import type { JsonObject } from '../envelope/vocabulary.js';
import { evidenceRoot, type Env } from '../paths.js';
import type { VerificationPolicy } from '../store/handoff-row.js';
import type { Store } from '../store/store.js';
import type { Freshness } from '../receipts/checks.js';
import type { ReceiptRow } from '../receipts/row.js';
import { envelopeState } from './refusals.js';
import type { ClauseError } from './update-contracts.js';
import { checkIssues, policyIssues } from './verification-policy.js';

export interface ReceiptStepOptions {
  /** Every contract id of the finalized contract's chain (the tip alone when it has no row). */
  chainIds: string[];
  requireReceipt: boolean;
  allowStale: boolean;
  /** The row's verification policy ('any' without a dispatched row) and its --check commands. */
  policy: VerificationPolicy;
  checks: string[];
  env: Env;
  cwd: string;
}

export interface ReceiptFreshness {
  receipt_id: string;
  freshness: Freshness;
}

export interface ReceiptStepResult {
  errors: ClauseError[];
  repair: string;
  /** Each cited receipt that passed checks 1–3, with what its tree looked like now; finalize records it on the row. */
  freshness: ReceiptFreshness[];
}

function citesOrRequires(envelope: JsonObject, requireReceipt: boolean): boolean {
  if (requireReceipt) return true;
  const report = envelope.evidence_report;
  const v =
    report !== null && typeof report === 'object' ? (report as Record<string, unknown>).verification : undefined;
  if (v === null || typeof v !== 'object') return false;
  const o = v as Record<string, unknown>;
  return o.receipt !== undefined || o.receipts !== undefined;
}

/** The step's errors (empty = pass), the repair text for a rejection and the cited receipts' freshness. */
export async function receiptStep(
  store: Store | null,
  envelope: JsonObject,
  o: ReceiptStepOptions,
): Promise<ReceiptStepResult> {
  const complete = envelopeState(envelope) === 'COMPLETE';
  const policy = policyIssues(envelope, o.policy);
  const needsChecks = complete && o.checks.length > 0;
  if (!citesOrRequires(envelope, o.requireReceipt) && policy.length === 0 && !needsChecks)
    return { errors: [], repair: '', freshness: [] };
  const { RECEIPT_REPAIR, checkReceiptsIn } = await import('../receipts/checks.js');
  // Under the policy receipt a COMPLETE close rests on a fresh receipt: --allow-stale does not excuse it.
  const strict = complete && o.policy === 'receipt';
  const freshness: ReceiptFreshness[] = [];
  const issues = await checkReceiptsIn(store, envelope, {
    contractChainIds: o.chainIds,
    requireReceipt: o.requireReceipt,
    allowStale: o.allowStale && !strict,
    staleExcusable: !strict,
    onFreshness: (receipt_id, f) => freshness.push({ receipt_id, freshness: f }),
    mode: 'finalize',
    env: o.env,
    evidenceRoot: evidenceRoot(o.env, o.cwd),
  });
  const checks = needsChecks ? await checksStep(store, envelope, o) : [];
  const seen = new Set(issues.map((e) => `${e.code} ${e.path}`));
  const errors: ClauseError[] = [...issues];
  for (const e of [...policy, ...checks]) {
    if (seen.has(`${e.code} ${e.path}`)) continue;
    seen.add(`${e.code} ${e.path}`);
    errors.push(e);
  }
  return { errors, repair: RECEIPT_REPAIR, freshness };
}

/** `dispatch --check`: the chain's receipts, newest first; a candidate is usable when intact and not stale. */
async function checksStep(store: Store | null, envelope: JsonObject, o: ReceiptStepOptions) {
  const rows: ReceiptRow[] = store === null ? [] : await store.listReceiptsByContracts(o.chainIds);
  const { matches } = await import('../receipts/checks.js');
  const { verifyReceiptIn } = await import('../receipts/integrity.js');
  const { staleJudge } = await import('../receipts/fingerprint.js');
  const isStale = staleJudge(o.env);
  const usable = new Set<string>();
  const root = evidenceRoot(o.env, o.cwd);
  for (const check of o.checks) {
    for (const row of rows) {
      if (row.outcome !== 'pass' || !matches(check, row)) continue;
      if (usable.has(row.receipt_id)) break;
      if (store !== null && (await verifyReceiptIn(store, row, { evidenceRoot: root })).ok && !isStale(row)) {
        usable.add(row.receipt_id);
        break;
      }
    }
  }
  return checkIssues(envelope, o.checks, rows, matches, (row) => usable.has(row.receipt_id));
}
