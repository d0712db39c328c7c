/**
 * The rows that dispatch, claim and the stop gate write: birth at dispatch, the set-once claim of a harness run id,
 * and the gate's backstop capture, on a SQLite connection synchronously (the shared statements of
 * queries/handoffs.ts, with the row time `now` given). Callers run them inside one IMMEDIATE transaction and take the
 * decisions that depend on the current row inside it.
 */
import type { CaptureNew, CaptureOpen } from './concerns.js';
import { guard, type Db } from './db.js';
import type { HandoffRow, VerificationPolicy } from './handoff-row.js';
import { handoffReads, handoffWrites as writes } from './queries/handoffs.js';
import { onSqlite } from './sqlite-dialect.js';

export interface BirthRow {
  contract_id: string;
  agent_id: string;
  workspace: string;
  raw_handoff_json: string;
  kind: string;
  plan_task_id: string | null;
  parent_handoff_id: number | null;
  brief_id: number | null;
  goal: string;
  consolidation: boolean;
  require_receipt: boolean;
  /** Default 'any' (a row born by a caller that names no policy). */
  verification?: VerificationPolicy;
  checks_json?: string | null;
  harness_id: string | null;
  can_write_json: string | null;
  acceptance_json: string | null;
  /** Approval patterns (migration 0008); null = none. */
  require_approval_json?: string | null;
  now: string;
}

/** The DISPATCHED / never_finalized row. */
export const insertBirthRow = (db: Db, { now, ...b }: BirthRow): HandoffRow =>
  onSqlite(db, writes.insertBirthRow(b), now);

/** Every row carrying `harnessId` (continuation links inherit it, so one chain may hold several). */
export const rowsWithHarnessId = (db: Db, harnessId: string): HandoffRow[] =>
  guard(db, () => onSqlite(db, handoffReads.rowsWithHarnessId(harnessId)));

/** The claim: set-once; false when the row already carries a harness id. */
export const setHarnessIdIfNull = (db: Db, id: number, harnessId: string, now: string): boolean =>
  onSqlite(db, writes.setHarnessIdIfNull(id, harnessId), now);

/** Backstop capture of an open row: never touches a closed row; false when a finalize won the race (zero rows). */
export const captureOpenRow = (db: Db, { now, ...c }: CaptureOpen & { now: string }): boolean =>
  onSqlite(db, writes.captureOpenRow(c), now);

/** Backstop capture of a draft without a row: inserted, or nothing when a row appeared meanwhile. */
export const captureNewRow = (db: Db, { now, ...c }: CaptureNew & { now: string }): boolean =>
  onSqlite(db, writes.captureNewRow(c), now);
