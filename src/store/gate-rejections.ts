/**
 * The stop gate's rejection counter (its meaning: src/gate/breaker.ts). Callers
 * run these inside one IMMEDIATE transaction per gate call.
 */
import type { Db } from './db.js';

export interface RejectionRow {
  key: string;
  attempts: number;
  tripped: 0 | 1;
  last_codes_json: string;
  contract_id: string | null;
  updated_at: string;
}

export const getRejection = (db: Db, key: string): RejectionRow | undefined =>
  db
    .prepare(
      'SELECT key, attempts, tripped, last_codes_json, contract_id, updated_at FROM gate_rejections WHERE key = ?',
    )
    .get(key) as RejectionRow | undefined;

export function putRejection(
  db: Db,
  r: { key: string; attempts: number; tripped: boolean; codes: string[]; contractId: string | null; now: string },
): void {
  db.prepare(
    `INSERT INTO gate_rejections (key, attempts, tripped, last_codes_json, contract_id, updated_at)
     VALUES (@key, @attempts, @tripped, @codes, @contract_id, @now)
     ON CONFLICT (key) DO UPDATE SET attempts = excluded.attempts, tripped = excluded.tripped,
       last_codes_json = excluded.last_codes_json, contract_id = excluded.contract_id, updated_at = excluded.updated_at`,
  ).run({
    key: r.key,
    attempts: r.attempts,
    tripped: r.tripped ? 1 : 0,
    codes: JSON.stringify(r.codes),
    contract_id: r.contractId,
    now: r.now,
  });
}

/** Reset: an allow verdict forgets the key, tripped or not. */
export const deleteRejection = (db: Db, key: string): number =>
  db.prepare('DELETE FROM gate_rejections WHERE key = ?').run(key).changes;
