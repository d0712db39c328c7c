/**
 * The shared operations (queries/) on a SQLite connection, synchronously, for what only SQLite needs: the mirror's
 * durability (mirrorEnvelope, which sqlite-store.ts's mirrorNow runs) and the tests of a `Db`. Reads are guarded
 * (SQLite failures become the store codes); writes run in the caller's transaction (or their own, where said), with
 * the row time `now` given or the process clock.
 */
import type { ApprovalLookupResult } from '../validator/types.js';
import type { ApprovalFilters, ApprovalRow, ApprovalStatus, DecideResult } from './approvals.js';
import type { AcRow, BriefRow } from './briefs.js';
import type { CaptureNew, CaptureOpen, NewApproval, NewBrief, RejectionPut } from './concerns.js';
import { guard, hasTable, writeTx, type Db } from './db.js';
import type { BirthRow } from './dispatch-rows.js';
import type { RejectionRow } from './gate-rejections.js';
import type { HandoffRow, MirrorOutcome } from './handoff-row.js';
import { currentVersion } from './migrate.js';
import { approvalReads, approvalWrites } from './queries/approvals.js';
import { briefWrites } from './queries/briefs.js';
import { handoffReads as reads, handoffWrites as writes, MIRROR_REV } from './queries/handoffs.js';
import { q, type Op } from './queries/op.js';
import { recordReads, recordWrites } from './queries/records.js';
import { onSqlite } from './sqlite-dialect.js';

const read = <T>(db: Db, op: Op<T>, version?: number): T => guard(db, () => onSqlite(db, op, undefined, version));

// Handoff rows and chains.
export const getHandoffByContractId = (db: Db, contractId: string): HandoffRow | undefined =>
  read(db, reads.getHandoffByContractId(contractId));
export const followChain = (db: Db, row: HandoffRow): HandoffRow[] => read(db, reads.followChain(row));
export const walkBack = (db: Db, row: HandoffRow): HandoffRow[] => read(db, reads.walkBack(row));
export const chainRoot = (db: Db, row: HandoffRow): HandoffRow => walkBack(db, row).at(-1) as HandoffRow;
export const wholeChain = (db: Db, row: HandoffRow): HandoffRow[] => read(db, reads.wholeChain(row));
export const planTaskBinding = (db: Db, tip: HandoffRow): string | null => read(db, reads.planTaskBinding(tip));
export const spentProbe = (db: Db, contractIds: readonly string[]): Map<string, string> =>
  read(db, reads.spentProbe(contractIds));
export const rowsWithHarnessId = (db: Db, harnessId: string): HandoffRow[] =>
  read(db, reads.rowsWithHarnessId(harnessId));

// Dispatch, claim and the gate's capture: inside the caller's IMMEDIATE transaction.
export const insertBirthRow = (db: Db, { now, ...b }: BirthRow): HandoffRow =>
  onSqlite(db, writes.insertBirthRow(b), now);
export const setHarnessIdIfNull = (db: Db, id: number, harnessId: string, now: string): boolean =>
  onSqlite(db, writes.setHarnessIdIfNull(id, harnessId), now);
export const captureOpenRow = (db: Db, { now, ...c }: CaptureOpen & { now: string }): boolean =>
  onSqlite(db, writes.captureOpenRow(c), now);
export const captureNewRow = (db: Db, { now, ...c }: CaptureNew & { now: string }): boolean =>
  onSqlite(db, writes.captureNewRow(c), now);

/** The continuation link row, in its own IMMEDIATE transaction (or the caller's); undefined when one exists. */
export const insertContinuation = (
  db: Db,
  parent: HandoffRow,
  newContractId: string,
  seedJson: string,
): HandoffRow | undefined =>
  writeTx(db, () => onSqlite(db, writes.insertContinuation(parent, newContractId, seedJson)));

/**
 * Copies revision `rev` of a saved draft onto its row while the row is DISPATCHED or IN_PROGRESS and holds an older
 * revision, in a transaction of its own committed without fsync; never creates or closes a row.
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

// The gate's rejection counter: inside the gate call's IMMEDIATE transaction.
export const getRejection = (db: Db, key: string): RejectionRow | undefined =>
  onSqlite(db, recordReads.getRejection(key));
export const putRejection = (db: Db, { now, ...r }: RejectionPut & { now: string }): void =>
  onSqlite(db, recordWrites.putRejection(r), now);
export const deleteRejection = (db: Db, key: string): number => onSqlite(db, recordWrites.deleteRejection(key));

// Briefs.
export const insertBrief = (db: Db, b: NewBrief): BriefRow => onSqlite(db, briefWrites.insertBrief(b));
export const appendAcs = (db: Db, briefId: number, acs: { ac_id: string; description: string }[]): AcRow[] =>
  onSqlite(db, briefWrites.appendAcs(briefId, acs));

// Approvals, read at the file's own schema version (a store read as it is may be older).
export function approvalLookup(db: Db): (id: string) => ApprovalLookupResult {
  const version = guard(db, () => currentVersion(db));
  return (id) => read(db, approvalReads.approvalStatus(id), version);
}
export const getApproval = (db: Db, id: string): ApprovalRow | undefined =>
  read(
    db,
    approvalReads.getApproval(id),
    guard(db, () => currentVersion(db)),
  );
export const listApprovals = (db: Db, f: ApprovalFilters): ApprovalRow[] =>
  read(
    db,
    approvalReads.listApprovals(f),
    guard(db, () => currentVersion(db)),
  );
export const insertApproval = (db: Db, a: NewApproval): ApprovalRow =>
  writeTx(db, () => onSqlite(db, approvalWrites.insertApproval(a)));
export const decideApproval = (
  db: Db,
  id: string,
  decision: ApprovalStatus,
  by: string | null,
  note: string | null,
): DecideResult => writeTx(db, () => onSqlite(db, approvalWrites.decideApproval(id, decision, by, note)));
export const markApprovalUsed = (db: Db, id: string, handoffId: number, now: string): boolean =>
  onSqlite(db, approvalWrites.markApprovalUsed(id, handoffId), now);
