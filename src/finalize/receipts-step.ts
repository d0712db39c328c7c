/**
 * Finalize step 9b, the receipt checks: the seam between finalize and
 * src/receipts/checks.ts. It runs outside the write transaction; the receipts module is loaded only when the
 * envelope cites a receipt or the turn requires one, so a plain finalize pays nothing for it. The rows and their
 * outputs are read through the Store (either backend) by the same check the stop gate and `evidence show --verify`
 * use.
 */
import type { JsonObject } from '../envelope/vocabulary.js';
import { evidenceRoot, type Env } from '../paths.js';
import type { Store } from '../store/store.js';
import type { ClauseError } from './update-contracts.js';

export interface ReceiptStepOptions {
  /** Every contract id of the finalized contract's chain (the tip alone when it has no row). */
  chainIds: string[];
  requireReceipt: boolean;
  allowStale: boolean;
  env: Env;
  cwd: string;
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

/** The step's errors (empty = pass) and the repair text for a rejection. `store` null: no store yet. */
export async function receiptStep(
  store: Store | null,
  envelope: JsonObject,
  o: ReceiptStepOptions,
): Promise<{ errors: ClauseError[]; repair: string }> {
  if (!citesOrRequires(envelope, o.requireReceipt)) return { errors: [], repair: '' };
  const { RECEIPT_REPAIR, checkReceiptsIn } = await import('../receipts/checks.js');
  const issues = await checkReceiptsIn(store, envelope, {
    contractChainIds: o.chainIds,
    requireReceipt: o.requireReceipt,
    allowStale: o.allowStale,
    mode: 'finalize',
    env: o.env,
    evidenceRoot: evidenceRoot(o.env, o.cwd),
  });
  return { errors: issues, repair: RECEIPT_REPAIR };
}
