/**
 * The rejection circuit breaker (dispatch-and-gate.md §4.6): every block counts, a count at the ceiling trips
 * (sticky while tripped), every allow resets. One IMMEDIATE transaction per call, one attempt.
 */
import { writeTx, type Db } from '../store/db.js';
import { deleteRejection, getRejection, putRejection } from '../store/gate-rejections.js';
import { nowIso } from '../store/handoffs.js';
import { readStoredJson, stringListColumn } from '../store/stored-json.js';

export interface CountResult {
  attempt: number;
  tripped: boolean;
  /** The codes of the previous counted rejection, if any. */
  previousCodes?: string[];
}

/** The attempt arithmetic (pure): a tripped key stays tripped at its count; otherwise count up and compare. */
export function nextAttempt(prev: { attempts: number; tripped: boolean } | undefined, max: number): { attempts: number; tripped: boolean } {
  if (prev?.tripped) return { attempts: prev.attempts, tripped: true };
  const attempts = (prev?.attempts ?? 0) + 1;
  return { attempts, tripped: attempts >= max };
}

export function countBlock(db: Db, key: string, codes: string[], contractId: string | null, max: number): CountResult {
  return writeTx(
    db,
    () => {
      const row = getRejection(db, key);
      const next = nextAttempt(row && { attempts: row.attempts, tripped: row.tripped === 1 }, max);
      putRejection(db, { key, attempts: next.attempts, tripped: next.tripped, codes, contractId, now: nowIso() });
      return { attempt: next.attempts, tripped: next.tripped, previousCodes: row && readStoredJson(row.last_codes_json, stringListColumn) };
    },
    { attempts: 1 },
  );
}

export function resetKey(db: Db, key: string): void {
  writeTx(db, () => deleteRejection(db, key), { attempts: 1 });
}
