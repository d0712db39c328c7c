/**
 * The stop gate's rejection counter (its meaning: src/gate/breaker.ts) on a SQLite connection, synchronously (the
 * shared statements of queries/records.ts). Callers run these inside one IMMEDIATE transaction per gate call.
 */
import type { RejectionPut } from './concerns.js';
import type { Db } from './db.js';
import { recordReads, recordWrites } from './queries/records.js';
import { onSqlite } from './sqlite-dialect.js';

export interface RejectionRow {
  key: string;
  attempts: number;
  tripped: 0 | 1;
  last_codes_json: string;
  contract_id: string | null;
  updated_at: string;
}

export const getRejection = (db: Db, key: string): RejectionRow | undefined =>
  onSqlite(db, recordReads.getRejection(key));

export const putRejection = (db: Db, { now, ...r }: RejectionPut & { now: string }): void =>
  onSqlite(db, recordWrites.putRejection(r), now);

/** Reset: an allow verdict forgets the key, tripped or not. */
export const deleteRejection = (db: Db, key: string): number => onSqlite(db, recordWrites.deleteRejection(key));
