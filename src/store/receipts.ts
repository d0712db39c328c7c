/**
 * Repository of the immutable `receipts` table (migration 0002). Insert and read only:
 * the table's triggers refuse UPDATE and DELETE, and no function here issues either.
 *
 *   insertReceipt(db, row)                       inside the caller's writeTx
 *   getReceipt(db, receiptId)                    ReceiptRow | undefined (undefined too without the table)
 *   listReceiptsByContracts(db, contractIds)     newest first: started_at DESC, receipt_id DESC
 */
import { RECEIPT_COLUMNS, type ReceiptRow } from './receipt-row.js';
import { guard, hasTable, type Db } from './db.js';

const COLUMN_LIST = RECEIPT_COLUMNS.join(', ');
const PARAMS = RECEIPT_COLUMNS.map((c) => `@${c}`).join(', ');

/** Inserts one receipt row. Call inside the caller's IMMEDIATE transaction (writeTx). */
export function insertReceipt(db: Db, row: ReceiptRow): void {
  db.prepare(`INSERT INTO receipts (${COLUMN_LIST}) VALUES (${PARAMS})`).run(row);
}

export function getReceipt(db: Db, receiptId: string): ReceiptRow | undefined {
  if (!hasTable(db, 'receipts')) return undefined;
  return guard(
    db,
    () =>
      db.prepare(`SELECT ${COLUMN_LIST} FROM receipts WHERE receipt_id = ?`).get(receiptId) as ReceiptRow | undefined,
  );
}

/** The receipts of the given contracts, newest first (`started_at DESC, receipt_id DESC`). */
export function listReceiptsByContracts(db: Db, contractIds: readonly string[]): ReceiptRow[] {
  if (contractIds.length === 0 || !hasTable(db, 'receipts')) return [];
  return guard(
    db,
    () =>
      db
        .prepare(
          `SELECT ${COLUMN_LIST} FROM receipts WHERE contract_id IN (SELECT value FROM json_each(?))
            ORDER BY started_at DESC, receipt_id DESC`,
        )
        .all(JSON.stringify(contractIds)) as ReceiptRow[],
  );
}
