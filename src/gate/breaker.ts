/**
 * The rejection circuit breaker: every block counts, a count at the ceiling trips
 * (sticky while tripped), every allow resets. One store transaction per call, one attempt; the read-then-put holds the
 * key's lock (`breaker:<key>`), so two hosts counting one key never lose a count.
 */
import type { Store } from '../store/store.js';
import { readStoredJson, stringListColumn } from '../store/stored-json.js';

export interface CountResult {
  attempt: number;
  tripped: boolean;
  /** The codes of the previous counted rejection, if any. */
  previousCodes?: string[];
}

/**
 * The attempt arithmetic (pure): a tripped key stays tripped at its count; otherwise count up and compare.
 * `endTrip`: this stop starts a new turn of a session key, so a trip of an earlier turn is over and counting restarts
 * (a tripped breaker never disables the gate for a whole session).
 */
export function nextAttempt(
  prev: { attempts: number; tripped: boolean } | undefined,
  max: number,
  endTrip = false,
): { attempts: number; tripped: boolean } {
  if (prev?.tripped && endTrip) return { attempts: 1, tripped: 1 >= max };
  if (prev?.tripped) return { attempts: prev.attempts, tripped: true };
  const attempts = (prev?.attempts ?? 0) + 1;
  return { attempts, tripped: attempts >= max };
}

const lockOf = (key: string): string => `breaker:${key}`;

export function countBlock(
  store: Store,
  key: string,
  codes: string[],
  contractId: string | null,
  max: number,
  endTrip = false,
): Promise<CountResult> {
  return store.tx(
    async (t) => {
      const row = await t.getRejection(key);
      const wasTripped = row !== undefined && Number(row.tripped) === 1;
      const next = nextAttempt(row && { attempts: row.attempts, tripped: wasTripped }, max, endTrip);
      await t.putRejection({ key, attempts: next.attempts, tripped: next.tripped, codes, contractId });
      const restarted = wasTripped && endTrip;
      return {
        attempt: next.attempts,
        tripped: next.tripped,
        previousCodes: row && !restarted ? readStoredJson(row.last_codes_json, stringListColumn) : undefined,
      };
    },
    { attempts: 1, lock: lockOf(key) },
  );
}

export async function resetKey(store: Store, key: string): Promise<void> {
  await store.tx((t) => t.deleteRejection(key), { attempts: 1, lock: lockOf(key) });
}
