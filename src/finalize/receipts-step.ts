/**
 * Finalize step 9b, the receipt checks: the seam between finalize and
 * src/receipts/checks.ts. It runs outside the write transaction; the receipts module is loaded only when the
 * envelope cites a receipt or the turn requires one, so a plain finalize pays nothing for it. The cited receipt rows
 * are read through the Store first (either backend), then judged by the pure checks.
 */
import type { JsonObject } from '../envelope/vocabulary.js';
import type { ReceiptCheckOptions, ReceiptIssue } from '../receipts/checks.js';
import type { ReceiptRow } from '../receipts/row.js';
import type { StoreReads } from '../store/store.js';
import type { ClauseError } from './update-contracts.js';

export interface ReceiptStepOptions {
  /** Every contract id of the finalized contract's chain (the tip alone when it has no row). */
  chainIds: string[];
  requireReceipt: boolean;
  allowStale: boolean;
  env: NodeJS.ProcessEnv;
}

function citesOrRequires(envelope: JsonObject, requireReceipt: boolean): boolean {
  if (requireReceipt) return true;
  const report = envelope.evidence_report;
  const v = report !== null && typeof report === 'object' ? (report as Record<string, unknown>).verification : undefined;
  if (v === null || typeof v !== 'object') return false;
  const o = v as Record<string, unknown>;
  return o.receipt !== undefined || o.receipts !== undefined;
}

/**
 * The receipt checks over `reads` (null: no store, every cited receipt is RECEIPT_NOT_FOUND), shared with the stop
 * gate: the cited rows are fetched, then checkReceiptsWith judges them in the normative order.
 */
export async function checkReceiptsIn(reads: Pick<StoreReads, 'getReceipt'> | null, envelope: unknown, opts: ReceiptCheckOptions): Promise<ReceiptIssue[]> {
  const { checkReceiptsWith, citedReceipts } = await import('../receipts/checks.js');
  const rows = new Map<string, ReceiptRow>();
  if (reads !== null) {
    for (const { id } of citedReceipts(envelope)) {
      if (rows.has(id)) continue;
      const row = await reads.getReceipt(id);
      if (row !== undefined) rows.set(id, row);
    }
  }
  return checkReceiptsWith((id) => rows.get(id), envelope, opts);
}

/** The step's errors (empty = pass) and the repair text for a rejection. */
export async function receiptStep(reads: StoreReads | null, envelope: JsonObject, o: ReceiptStepOptions): Promise<{ errors: ClauseError[]; repair: string }> {
  if (!citesOrRequires(envelope, o.requireReceipt)) return { errors: [], repair: '' };
  const { RECEIPT_REPAIR } = await import('../receipts/checks.js');
  const issues = await checkReceiptsIn(reads, envelope, {
    contractChainIds: o.chainIds,
    requireReceipt: o.requireReceipt,
    allowStale: o.allowStale,
    mode: 'finalize',
    env: o.env,
  });
  return { errors: issues, repair: RECEIPT_REPAIR };
}
