/**
 * What `handoff store copy` moves: the tables of the store in an order that satisfies their
 * foreign keys, each read in primary-key order, and the digest both sides of a copy are compared by. Shared by the
 * SQLite reader (copy-sqlite.ts) and the PostgreSQL writer (copy-pg.ts).
 */
import { createHash } from 'node:crypto';

export interface CopyTable {
  name: string;
  /** ORDER BY of the digest (the primary key). */
  key: string;
  /** The table has an identity column `id` whose sequence is reset after the copy. */
  identity: boolean;
}

/** Parents before children: briefs → criteria; handoffs (ids ascending: links point to earlier rows) → receipts → evidence. */
export const COPY_TABLES: readonly CopyTable[] = [
  { name: 'briefs', key: 'id', identity: true },
  { name: 'acceptance_criteria', key: 'id', identity: true },
  { name: 'handoffs', key: 'id', identity: true },
  { name: 'receipts', key: 'receipt_id', identity: false },
  { name: 'evidence', key: 'id', identity: true },
  { name: 'approvals', key: 'id', identity: false },
  { name: 'gate_rejections', key: 'key', identity: false },
  { name: 'attestations', key: 'id', identity: true },
];

export type Row = Record<string, unknown>;

/** A table's digest: sha256 over one JSON line per row (its columns in `columns` order), rows in key order. */
export function tableDigest(columns: readonly string[], rows: readonly Row[]): string {
  const h = createHash('sha256');
  for (const row of rows) h.update(`${JSON.stringify(columns.map((c) => row[c] ?? null))}\n`);
  return h.digest('hex');
}
