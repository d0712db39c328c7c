/**
 * The PostgreSQL store's transaction preamble and lock keys. Nothing here outlives a transaction, so the store works
 * behind a transaction pooler (PgBouncer's `pool_mode = transaction`), where consecutive statements of a session may
 * reach different server connections and only a transaction stays on one.
 *
 * Lock keys are computed by the client, not by the server's `hashtext()` (whose result is not a documented contract
 * and could change between server versions): a contract's lock is the pair of int4 keys
 * `(LOCK_SPACE, h)`, where `LOCK_SPACE` is ASCII "hand" (0x68616e64) and `h` is the first four bytes of the SHA-256 of
 * the contract id's UTF-8 bytes, read as a big-endian signed 32-bit integer. Every build that takes these keys runs on
 * schema version 11 or later (migration 0011), so a build that still hashes with `hashtext()` meets
 * STORE_SCHEMA_TOO_NEW instead of taking other locks on the same store.
 */
import { createHash } from 'node:crypto';

/** The first key of every per-contract advisory lock (and of `store copy`'s): ASCII "hand". */
export const LOCK_SPACE = 0x68616e64;

/** The second key of contract `contractId`'s advisory lock (see the module comment). */
export function contractLockKey(contractId: string): number {
  return createHash('sha256').update(contractId, 'utf8').digest().readInt32BE(0);
}

/** The limits a transaction sets for itself (SET LOCAL): ms, 0 for none. */
export interface TxLimits {
  statementMs: number;
  lockMs: number;
  idleInTxMs: number;
}

const ms = (n: number): number => {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`not a time limit in ms: ${n}`);
  return n;
};

/**
 * One simple-protocol query that opens a transaction: `BEGIN`, then its limits (SET LOCAL), then the advisory locks
 * of `lockIds` in the given order (so the lock waits are bounded by the limits), then the transaction's clock
 * (`handoff.now`, read by `handoff_now()`), taken after the waits: a transaction that waited for another's lock is
 * stamped after it. Every value is a number computed here, so the text holds no outside input.
 */
export function txPreamble(limits: TxLimits, lockIds: readonly string[]): string {
  const parts = [
    'BEGIN ISOLATION LEVEL READ COMMITTED',
    `SET LOCAL statement_timeout = ${ms(limits.statementMs)}`,
    `SET LOCAL lock_timeout = ${ms(limits.lockMs)}`,
    `SET LOCAL idle_in_transaction_session_timeout = ${ms(limits.idleInTxMs)}`,
    ...lockIds.map((id) => `SELECT pg_advisory_xact_lock(${LOCK_SPACE}, ${contractLockKey(id)})`),
    `SELECT set_config('handoff.now', to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), true)`,
  ];
  return parts.join('; ');
}
