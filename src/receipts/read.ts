/**
 * Reading receipts: the receipts of a contract's whole continuation chain, newest first, and one
 * receipt with an optional integrity check. Read verbs: a missing store is never created.
 */
import { HandoffError } from '../errors.js';
import { evidenceRoot, type Env } from '../paths.js';
import { withReader } from '../evidence/store-access.js';
import { verifyReceiptIn, type IntegrityReport } from './integrity.js';
import type { ReceiptRow } from './row.js';

/** The chain's receipts (an id without a row is its own chain); no store → none. */
export function receiptsOfChain(env: Env, cwd: string, contractId: string): Promise<ReceiptRow[]> {
  return withReader(
    env,
    cwd,
    async (s) => {
      const row = await s.getHandoffByContractId(contractId);
      const ids = row === undefined ? [contractId] : await s.chainContractIds(row);
      return s.listReceiptsByContracts(ids);
    },
    () => [],
  );
}

export const receiptNotFound = (receiptId: string): HandoffError =>
  new HandoffError(
    'RECEIPT_NOT_FOUND',
    `no receipt ${receiptId} in the store;`,
    { receipt_id: receiptId },
    'copy an id printed by handoff evidence run or handoff contract verify (see handoff evidence receipts --draft-id ID).',
  );

/** One receipt (RECEIPT_NOT_FOUND, exit 3, when unknown or without a store), verified on request (store blobs too). */
export async function readReceipt(
  env: Env,
  cwd: string,
  receiptId: string,
  verify: boolean,
): Promise<{ row: ReceiptRow; integrity?: IntegrityReport }> {
  const found = await withReader<{ row: ReceiptRow; integrity?: IntegrityReport } | undefined>(
    env,
    cwd,
    async (s) => {
      const row = await s.getReceipt(receiptId);
      if (row === undefined) return undefined;
      return verify
        ? { row, integrity: await verifyReceiptIn(s, row, { evidenceRoot: evidenceRoot(env, cwd) }) }
        : { row };
    },
    () => undefined,
  );
  if (found === undefined) throw receiptNotFound(receiptId);
  return found;
}
