/**
 * The rows that dispatch, claim and the stop gate write: birth at dispatch, the
 * set-once claim of a harness run id, and the gate's backstop capture. Callers run them inside one IMMEDIATE
 * transaction and take the decisions that depend on the current row inside it.
 */
import { guard, hasTable, type Db } from './db.js';
import { toHandoffRow, type HandoffRow, type VerificationPolicy } from './handoff-row.js';

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
export function insertBirthRow(db: Db, b: BirthRow): HandoffRow {
  const raw = db
    .prepare(
      `INSERT INTO handoffs (contract_id, agent_id, workspace, agent_state, cut_reason, raw_handoff_json, kind,
                             plan_task_id, parent_handoff_id, brief_id, continues_handoff_id, harness_id, goal,
                             consolidation, require_receipt, verification, checks_json, can_write_json, acceptance_json,
                             require_approval_json, created_at, updated_at)
       VALUES (@contract_id, @agent_id, @workspace, 'DISPATCHED', 'never_finalized', @raw_handoff_json, @kind,
               @plan_task_id, @parent_handoff_id, @brief_id, NULL, @harness_id, @goal,
               @consolidation, @require_receipt, @verification, @checks_json, @can_write_json, @acceptance_json,
               @require_approval_json, @now, @now)
       RETURNING *`,
    )
    .get({
      ...b,
      require_approval_json: b.require_approval_json ?? null,
      consolidation: b.consolidation ? 1 : 0,
      require_receipt: b.require_receipt ? 1 : 0,
      verification: b.verification ?? 'any',
      checks_json: b.checks_json ?? null,
    }) as Record<string, unknown>;
  return toHandoffRow(raw);
}

/** Every row carrying `harnessId` (continuation links inherit it, so one chain may hold several). */
export function rowsWithHarnessId(db: Db, harnessId: string): HandoffRow[] {
  if (!hasTable(db, 'handoffs')) return [];
  return guard(db, () =>
    (
      db.prepare('SELECT * FROM handoffs WHERE harness_id = ? ORDER BY id').all(harnessId) as Record<string, unknown>[]
    ).map(toHandoffRow),
  );
}

/** The claim: set-once; false when the row already carries a harness id. */
export const setHarnessIdIfNull = (db: Db, id: number, harnessId: string, now: string): boolean =>
  db
    .prepare('UPDATE handoffs SET harness_id = ?, updated_at = ? WHERE id = ? AND harness_id IS NULL')
    .run(harnessId, now, id).changes === 1;

/**
 * Backstop capture of an open row: never touches a closed row; false when a finalize
 * won the race (zero rows).
 */
export const captureOpenRow = (
  db: Db,
  c: { id: number; json: string; harnessId: string | null; now: string },
): boolean =>
  db
    .prepare(
      `UPDATE handoffs SET agent_state = 'IN_PROGRESS', cut_reason = 'backstop_capture', raw_handoff_json = @json,
              harness_id = COALESCE(harness_id, @hid), updated_at = @now
        WHERE id = @id AND agent_state IN ('DISPATCHED','IN_PROGRESS')`,
    )
    .run({ id: c.id, json: c.json, hid: c.harnessId, now: c.now }).changes === 1;

/** Backstop capture of a draft without a row: inserted, or nothing when a row appeared meanwhile. */
export const captureNewRow = (
  db: Db,
  c: { contractId: string; agentId: string; workspace: string; json: string; harnessId: string | null; now: string },
): boolean =>
  db
    .prepare(
      `INSERT INTO handoffs (contract_id, agent_id, workspace, agent_state, cut_reason, raw_handoff_json, harness_id,
                             created_at, updated_at)
       VALUES (@contract_id, @agent_id, @workspace, 'IN_PROGRESS', 'backstop_capture', @json, @hid, @now, @now)
       ON CONFLICT (contract_id) DO NOTHING`,
    )
    .run({
      contract_id: c.contractId,
      agent_id: c.agentId,
      workspace: c.workspace,
      json: c.json,
      hid: c.harnessId,
      now: c.now,
    }).changes === 1;

/**
 * The stop gate judged a stop of this contract: the row is no longer merely running. Only
 * gate_seen_at changes: updated_at measures the turn's own writes, which the liveness rule reads.
 */
export const markGateSeen = (db: Db, contractId: string, now: string): boolean =>
  db.prepare('UPDATE handoffs SET gate_seen_at = ? WHERE contract_id = ?').run(now, contractId).changes === 1;
