/**
 * The `handoffs` rows on a SQLite connection, synchronously: the shared statements (queries/handoffs.ts) run with
 * onSqlite, for SQLite's own needs (the mirror's durability) and for the tests of a `Db`. The Store interface runs
 * the same statements (sqlite-store.ts, pg-store.ts).
 *
 *   type HandoffRow, exposeHandoff(row, withEnvelope?)   the row (handoff-row.ts) and its JSON exposure
 *   getHandoffByContractId(db, contractId)   HandoffRow | undefined (undefined too when the table does not exist)
 *   followChain / walkBack / chainRoot / wholeChain / planTaskBinding / spentProbe (db, …)
 *   insertContinuation(db, parent, newContractId, seedJson)   the link row, in its own IMMEDIATE transaction (or the
 *                                            caller's); undefined when the parent already has a link
 *   mirrorEnvelope(db, contractId, json, rev)   the guarded mirror UPDATE in its own transaction, committed without
 *                                            fsync: 'mirrored' | 'superseded' | 'no_row' | 'closed'
 */
import { guard, hasTable, writeTx, type Db } from './db.js';
import type { HandoffRow, MirrorOutcome } from './handoff-row.js';
import { handoffReads as reads, handoffWrites as writes, MIRROR_REV } from './queries/handoffs.js';
import { q, type Op } from './queries/op.js';
import { onSqlite } from './sqlite-dialect.js';

export { exposeHandoff } from './handoff-row.js';
export type { HandoffRow, MirrorOutcome } from './handoff-row.js';

const read = <T>(db: Db, op: Op<T>): T => guard(db, () => onSqlite(db, op));

export const getHandoffByContractId = (db: Db, contractId: string): HandoffRow | undefined =>
  read(db, reads.getHandoffByContractId(contractId));
export const followChain = (db: Db, row: HandoffRow): HandoffRow[] => read(db, reads.followChain(row));
export const walkBack = (db: Db, row: HandoffRow): HandoffRow[] => read(db, reads.walkBack(row));
export const chainRoot = (db: Db, row: HandoffRow): HandoffRow => walkBack(db, row).at(-1) as HandoffRow;
export const wholeChain = (db: Db, row: HandoffRow): HandoffRow[] => read(db, reads.wholeChain(row));
export const planTaskBinding = (db: Db, tip: HandoffRow): string | null => read(db, reads.planTaskBinding(tip));
export const spentProbe = (db: Db, contractIds: readonly string[]): Map<string, string> =>
  read(db, reads.spentProbe(contractIds));

export const insertContinuation = (
  db: Db,
  parent: HandoffRow,
  newContractId: string,
  seedJson: string,
): HandoffRow | undefined =>
  writeTx(db, () => onSqlite(db, writes.insertContinuation(parent, newContractId, seedJson)));

/**
 * Copies revision `rev` of a saved draft onto its row while the row is DISPATCHED or IN_PROGRESS and holds an older
 * revision; never creates or closes a row.
 */
export function mirrorEnvelope(db: Db, contractId: string, json: string, rev: number): MirrorOutcome {
  if (!hasTable(db, 'handoffs')) return 'no_row';
  // A row's revision only grows: one already at `rev` or later needs no write lock (a hundred parallel writers'
  // mirrors then skip the file's one write lock instead of queueing on it).
  const seen = read(db, q<{ mirror_rev: number }>(MIRROR_REV, [contractId])).rows[0];
  if (seen !== undefined && seen.mirror_rev >= rev) return 'superseded';
  return relaxedCommit(db, () => writeTx(db, () => onSqlite(db, writes.mirrorEnvelope(contractId, json, rev))));
}

/**
 * Runs `fn`'s transaction with `synchronous = NORMAL`, then restores the connection's level. The mirror's commit is
 * not fsynced: the draft it copies is already fsynced, WAL keeps the commit against a killed process, and an
 * operating-system crash can only leave the row a few mirrors behind its draft, which the next write re-mirrors (as
 * after a write killed between its draft and its mirror). Inside a caller's open transaction the level cannot
 * change, and the commit is the caller's.
 */
function relaxedCommit<T>(db: Db, fn: () => T): T {
  if (db.inTransaction) return fn();
  const level = db.pragma('synchronous', { simple: true }) as number;
  db.pragma('synchronous = NORMAL');
  try {
    return fn();
  } finally {
    db.pragma(`synchronous = ${level}`);
  }
}
