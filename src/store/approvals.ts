/**
 * The `approvals` repository. Transitions are decided inside the IMMEDIATE
 * transaction that writes (`UPDATE … WHERE id = ? AND status = ?`), so concurrent decides cannot both win.
 */
import { createHash } from 'node:crypto';
import { HandoffError } from '../errors.js';
import { mintApprovalId } from '../ids.js';
import type { ApprovalLookupResult } from '../validator/types.js';
import { guard, hasTable, writeTx, type Db } from './db.js';
import { afterKey, named, type PageKey } from './page.js';

export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected', 'revoked', 'expired', 'used'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];
/** What `approval decide` may ask for: `used` is set only by the finalize that stores the executing turn. */
export const DECISIONS = ['approved', 'rejected', 'revoked', 'expired'] as const;

export interface ApprovalRow {
  id: string;
  workspace: string;
  agent_id: string | null;
  contract_id: string | null;
  status: ApprovalStatus;
  exact_content: string;
  fingerprint: string;
  created_at: string;
  decided_at: string | null;
  decided_by: string | null;
  decision_note: string | null;
  /** Set together with status `used` (migration 0004); null before, and on a store read as it was before 0004. */
  used_at: string | null;
  used_by_handoff_id: number | null;
  /** The contract whose tool call used it (the pre-tool gate, migration 0008); read only by the cross-check's lookup. */
  used_by_contract_id?: string | null;
  /** The tool call the pre-tool gate let run on it (migration 0008); null for a use by finalize or before 0008. */
  used_by_tool_use_id?: string | null;
}

const BASE_COLS =
  'id, workspace, agent_id, contract_id, status, exact_content, fingerprint, created_at, decided_at, decided_by, decision_note';
const COLS = `${BASE_COLS}, used_at, used_by_handoff_id`;
/**
 * The column list every approval read returns (both store backends). A store read as it is before migration 0004
 * (a probe, a read-only data root) has no used columns: they read as NULL, never from the table; likewise the
 * pre-tool gate's tool call id before migration 0008 (`hasGateUse`).
 */
export const approvalCols = (hasUseColumns: boolean, hasGateUse = false): string =>
  (hasUseColumns ? COLS : `${BASE_COLS}, NULL AS used_at, NULL AS used_by_handoff_id`) +
  (hasGateUse ? ', used_by_tool_use_id' : ', NULL AS used_by_tool_use_id');
/** The schema version that brings the used columns (migration 0004). */
export const USE_COLUMNS_VERSION = 4;
/** The schema version that brings used_by_tool_use_id and used_by_contract_id (migration 0008). */
export const GATE_USE_VERSION = 8;

const gateUseColumns = new WeakMap<Db, boolean>();
/** Whether this SQLite store's approvals table has migration 0008's used_by_tool_use_id (asked once per connection). */
function hasGateUse(db: Db): boolean {
  let known = gateUseColumns.get(db);
  if (known === undefined) {
    known = (db.prepare('PRAGMA table_info(approvals)').all() as { name: string }[]).some(
      (c) => c.name === 'used_by_tool_use_id',
    );
    gateUseColumns.set(db, known);
  }
  return known;
}

const useColumns = new WeakMap<Db, boolean>();
/** Whether this SQLite store's approvals table has the used columns (asked once per connection). */
function hasUseColumns(db: Db): boolean {
  let known = useColumns.get(db);
  if (known === undefined) {
    known = (db.prepare('PRAGMA table_info(approvals)').all() as { name: string }[]).some((c) => c.name === 'used_at');
    useColumns.set(db, known);
  }
  return known;
}

/** The statuses each status may move to (a repeat of the current status is a no-op, not a transition). */
const TRANSITIONS: Record<ApprovalStatus, readonly ApprovalStatus[]> = {
  pending: ['approved', 'rejected', 'expired'],
  approved: ['revoked', 'used'],
  rejected: [],
  revoked: [],
  expired: [],
  used: [],
};

/** The approval as exposed in JSON: `approval_status` for the `status` column. */
export function exposeApproval(row: ApprovalRow): Record<string, unknown> {
  return {
    id: row.id,
    approval_status: row.status,
    workspace: row.workspace,
    agent_id: row.agent_id,
    contract_id: row.contract_id,
    fingerprint: row.fingerprint,
    exact_content: row.exact_content,
    created_at: row.created_at,
    decided_at: row.decided_at,
    decided_by: row.decided_by,
    decision_note: row.decision_note,
    used_at: row.used_at ?? null,
    used_by_handoff_id: row.used_by_handoff_id ?? null,
    used_by_tool_use_id: row.used_by_tool_use_id ?? null,
  };
}

/** The cross-check's view of a row: what the binding and lifecycle rules read. */
export const lookupOfRow = (row: ApprovalRow | undefined): ApprovalLookupResult =>
  row === undefined
    ? { found: false }
    : {
        found: true,
        status: row.status,
        contractId: row.contract_id,
        agentId: row.agent_id,
        fingerprint: row.fingerprint,
        decidedAt: row.decided_at,
        usedByHandoffId: row.used_by_handoff_id ?? null,
        usedByContractId: row.used_by_contract_id ?? null,
      };

/** The cross-check's lookup; a store without the approvals table resolves nothing. */
export function approvalLookup(db: Db): (id: string) => ApprovalLookupResult {
  if (!hasTable(db, 'approvals')) return () => ({ found: false });
  // The pre-tool gate's use names its contract (migration 0008): a store read as it is before has no such column.
  const gateCol = (db.prepare('PRAGMA table_info(approvals)').all() as { name: string }[]).some(
    (c) => c.name === 'used_by_contract_id',
  );
  const stmt = guard(db, () =>
    db.prepare(
      `SELECT ${approvalCols(hasUseColumns(db), hasGateUse(db))}${gateCol ? ', used_by_contract_id' : ''} FROM approvals WHERE id = ?`,
    ),
  );
  return (id) => guard(db, () => lookupOfRow(stmt.get(id) as ApprovalRow | undefined));
}

/** `P-` + 32 lowercase hex from a CSPRNG. */
export { mintApprovalId as newApprovalId };

export const fingerprintOf = (content: string): string => createHash('sha256').update(content, 'utf8').digest('hex');

export function insertApproval(
  db: Db,
  a: { workspace: string; agent_id: string | null; contract_id: string | null; exact_content: string },
): ApprovalRow {
  return writeTx(
    db,
    () =>
      db
        .prepare(
          `INSERT INTO approvals (id, workspace, agent_id, contract_id, status, exact_content, fingerprint, created_at)
           VALUES (@id, @workspace, @agent_id, @contract_id, 'pending', @exact_content, @fingerprint, @created_at)
           RETURNING ${COLS}`,
        )
        .get({
          ...a,
          id: mintApprovalId(),
          fingerprint: fingerprintOf(a.exact_content),
          created_at: new Date().toISOString(),
        }) as ApprovalRow,
  );
}

export function getApproval(db: Db, id: string): ApprovalRow | undefined {
  if (!hasTable(db, 'approvals')) return undefined;
  return guard(
    db,
    () =>
      db.prepare(`SELECT ${approvalCols(hasUseColumns(db), hasGateUse(db))} FROM approvals WHERE id = ?`).get(id) as
        ApprovalRow | undefined,
  );
}

export const approvalNotFound = (id: string): HandoffError =>
  new HandoffError('APPROVAL_NOT_FOUND', `no approval ${id}; list them with \`handoff approval list\``, {
    approval_id: id,
  });

export interface DecideResult {
  row: ApprovalRow;
  previous: ApprovalStatus;
  changed: boolean;
}

/**
 * On the current row: `noop` for a repeat of the current status, `apply` for an allowed transition; any
 * other decision throws APPROVAL_TRANSITION_REFUSED (exit 1). Shared by both store backends.
 */
export function judgeDecision(row: ApprovalRow, decision: ApprovalStatus): 'noop' | 'apply' {
  // `used` is final and set only by finalize: even a repeat of it is no decision anyone may take.
  if (row.status === decision && decision !== 'used') return 'noop';
  const allowed: readonly ApprovalStatus[] = TRANSITIONS[row.status].filter((s) => s !== 'used');
  if (allowed.includes(decision)) return 'apply';
  throw new HandoffError(
    'APPROVAL_TRANSITION_REFUSED',
    `approval ${row.id} is ${row.status}; it cannot become ${decision} (${allowed.length > 0 ? `allowed: ${allowed.join(', ')}` : row.status === 'used' ? 'it was used by the handoff of its executing turn: a final status' : 'a final status'}); nothing was written`,
    { approval_id: row.id, approval_status: row.status, decision },
  );
}

/** Applies one decision in one IMMEDIATE transaction. APPROVAL_NOT_FOUND (3), APPROVAL_TRANSITION_REFUSED (1). */
export function decideApproval(
  db: Db,
  id: string,
  decision: ApprovalStatus,
  by: string | null,
  note: string | null,
): DecideResult {
  return writeTx(db, () => {
    const row = getApproval(db, id);
    if (row === undefined) throw approvalNotFound(id);
    if (judgeDecision(row, decision) === 'noop') return { row, previous: row.status, changed: false };
    const updated = db
      .prepare(
        `UPDATE approvals SET status = @decision, decided_at = @now, decided_by = @by, decision_note = @note
          WHERE id = @id AND status = @previous
         RETURNING ${COLS}`,
      )
      .get({ decision, now: new Date().toISOString(), by, note, id, previous: row.status }) as ApprovalRow;
    return { row: updated, previous: row.status, changed: true };
  });
}

export interface ApprovalFilters {
  status?: ApprovalStatus;
  agent_id?: string;
  contract_id?: string;
  workspace?: string;
  /** The page after this approval (keyset, page.ts). */
  after?: PageKey;
  limit: number;
}

/** The equality filters of `approval list`, each a column of the same name. */
export const APPROVAL_FILTERS = ['status', 'agent_id', 'contract_id', 'workspace'] as const;

export function listApprovals(db: Db, f: ApprovalFilters): ApprovalRow[] {
  if (!hasTable(db, 'approvals')) return [];
  const { where, params } = approvalWhere(f);
  if (f.after !== undefined) where.push(afterKey(f.after, named(params)));
  params.limit = f.limit;
  const sql = `SELECT ${approvalCols(hasUseColumns(db), hasGateUse(db))} FROM approvals ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
               ORDER BY created_at DESC, id DESC LIMIT @limit`;
  return guard(db, () => db.prepare(sql).all(params) as ApprovalRow[]);
}

export function countApprovals(db: Db, f: ApprovalFilters): number {
  if (!hasTable(db, 'approvals')) return 0;
  const { where, params } = approvalWhere(f);
  const sql = `SELECT COUNT(*) AS n FROM approvals ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}`;
  return guard(db, () => Number((db.prepare(sql).get(params) as { n: number }).n));
}

function approvalWhere(f: ApprovalFilters): { where: string[]; params: Record<string, unknown> } {
  const where: string[] = [];
  const params: Record<string, unknown> = {};
  for (const key of APPROVAL_FILTERS) {
    if (f[key] !== undefined) {
      where.push(`${key} = @${key}`);
      params[key] = f[key];
    }
  }
  return { where, params };
}

/** Marks an approved approval used by one tool call (the pre-tool gate, inside its transaction). */
export function markApprovalUsedByCall(
  db: Db,
  id: string,
  u: { handoffId: number; contractId: string; toolUseId: string },
  now: string,
): boolean {
  return (
    db
      .prepare(
        `UPDATE approvals SET status = 'used', used_at = ?, used_by_handoff_id = ?, used_by_contract_id = ?,
                used_by_tool_use_id = ? WHERE id = ? AND status = 'approved'`,
      )
      .run(now, u.handoffId, u.contractId, u.toolUseId, id).changes === 1
  );
}

/**
 * Marks an approved approval used by the handoff row `handoffId` (the finalize that first stores the executing turn,
 * inside its transaction). Only `approved` moves; decided_at and the decision stay. True when the row changed.
 */
export function markApprovalUsed(db: Db, id: string, handoffId: number, now: string): boolean {
  return (
    db
      .prepare(
        `UPDATE approvals SET status = 'used', used_at = ?, used_by_handoff_id = ? WHERE id = ? AND status = 'approved'`,
      )
      .run(now, handoffId, id).changes === 1
  );
}
