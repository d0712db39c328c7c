/**
 * Reading receipts (receipts.md §5): the receipts of a contract's whole continuation chain, newest first, and one
 * receipt with an optional integrity check. Read verbs: a missing DB file is never created.
 */
import { EXIT, HandoffError } from '../errors.js';
import type { Env } from '../paths.js';
import { withReader } from '../evidence/store-access.js';
import { chainContractIds, getHandoffByContractId } from '../store/handoffs.js';
import { getReceipt, listReceiptsByContracts } from '../store/receipts.js';
import { verifyReceipt, type IntegrityReport } from './integrity.js';
import type { ReceiptRow } from './row.js';

/** The chain's receipts (an id without a row is its own chain); DB absent → none. */
export function receiptsOfChain(env: Env, cwd: string, contractId: string): ReceiptRow[] {
  return withReader(
    env,
    cwd,
    (db) => {
      const row = getHandoffByContractId(db, contractId);
      const ids = row === undefined ? [contractId] : chainContractIds(db, row);
      return listReceiptsByContracts(db, ids);
    },
    () => [],
  );
}

export const receiptNotFound = (receiptId: string): HandoffError =>
  new HandoffError(
    'RECEIPT_NOT_FOUND',
    EXIT.NOT_FOUND,
    `no receipt ${receiptId} in the store;`,
    { receipt_id: receiptId },
    'copy an id printed by handoff evidence run or handoff contract verify (see handoff evidence receipts --draft-id ID).',
  );

/** One receipt (RECEIPT_NOT_FOUND, exit 3, when unknown or without a store), verified on request. */
export function readReceipt(env: Env, cwd: string, receiptId: string, verify: boolean): { row: ReceiptRow; integrity?: IntegrityReport } {
  const row = withReader(env, cwd, (db) => getReceipt(db, receiptId), () => undefined);
  if (row === undefined) throw receiptNotFound(receiptId);
  return verify ? { row, integrity: verifyReceipt(row) } : { row };
}
