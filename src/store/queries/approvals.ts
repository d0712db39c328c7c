/**
 * Approvals, written once for both backends: their lookups and lists, and the transitions (decide; `used` by a
 * finalize or by one tool call the pre-tool gate let run), each stamped with the store's clock. A decision reads its
 * row locked (the dialect's forUpdate), so a concurrent decide waits for this one and then judges the new status.
 */
import {
  approvalCols,
  APPROVAL_FILTERS,
  approvalNotFound,
  fingerprintOf,
  GATE_USE_VERSION,
  judgeDecision,
  lookupOfRow,
  newApprovalId,
  USE_COLUMNS_VERSION,
  type ApprovalFilters,
  type ApprovalRow,
  type ApprovalStatus,
  type DecideResult,
} from '../approvals.js';
import type { CallUse, NewApproval } from '../concerns.js';
import type { ApprovalLookupResult } from '../../validator/types.js';
import { afterKey } from '../page.js';
import { q, schemaAtLeast, type Dialect, type Op } from './op.js';

/** The table exists from the first migration: only an empty store (version 0) has none. */
const APPROVALS_SINCE = 1;
// Columns built when a statement is (approvals.ts's synchronous doors import this module: nothing of it runs on load).
const cols = (): string => approvalCols(true, true);
const LOCKED = (d: Dialect): string => `SELECT ${cols()} FROM approvals WHERE id = $1${d.forUpdate}`;

/** The columns a read returns on a store at its own version (one read as it is may predate 0004 or 0008). */
function* readCols(): Op<string> {
  return approvalCols(yield* schemaAtLeast(USE_COLUMNS_VERSION), yield* schemaAtLeast(GATE_USE_VERSION));
}

function* getApproval(id: string): Op<ApprovalRow | undefined> {
  const cols = yield* readCols();
  return (yield* q<ApprovalRow>(`SELECT ${cols} FROM approvals WHERE id = $1`, [id], APPROVALS_SINCE)).rows[0];
}

function approvalWhere(f: ApprovalFilters): { where: string[]; values: unknown[] } {
  const where: string[] = [];
  const values: unknown[] = [];
  for (const key of APPROVAL_FILTERS) if (f[key] !== undefined) where.push(`${key} = $${values.push(f[key])}`);
  return { where, values };
}

const whereClause = (where: string[]): string => (where.length > 0 ? `WHERE ${where.join(' AND ')}` : '');

export const approvalReads = {
  getApproval,
  /** The cross-check's lookup; a use by the pre-tool gate names its contract (migration 0008). */
  *approvalStatus(id: string): Op<ApprovalLookupResult> {
    const row = yield* getApproval(id);
    if (row?.status === 'used' && (yield* schemaAtLeast(GATE_USE_VERSION))) {
      const text = 'SELECT used_by_contract_id AS c FROM approvals WHERE id = $1';
      row.used_by_contract_id = (yield* q<{ c: string | null }>(text, [id])).rows[0]?.c;
    }
    return lookupOfRow(row);
  },
  /** Newest first (created_at DESC, id DESC), every filter before LIMIT. */
  *listApprovals(f: ApprovalFilters): Op<ApprovalRow[]> {
    const cols = yield* readCols();
    const { where, values } = approvalWhere(f);
    if (f.after !== undefined) where.push(afterKey(f.after, (v) => `$${values.push(v)}`));
    const text = `SELECT ${cols} FROM approvals ${whereClause(where)}
               ORDER BY created_at DESC, id DESC LIMIT $${values.push(f.limit)}`;
    return (yield* q<ApprovalRow>(text, values, APPROVALS_SINCE)).rows;
  },
  /** The approvals the filters match, whatever the page. */
  *countApprovals(f: ApprovalFilters): Op<number> {
    const { where, values } = approvalWhere(f);
    const text = `SELECT COUNT(*) AS n FROM approvals ${whereClause(where)}`;
    return Number((yield* q<{ n: string | number }>(text, values, APPROVALS_SINCE)).rows[0]?.n ?? 0);
  },
};

export const approvalWrites = {
  /** A pending approval of `exact_content`, its fingerprint the content's sha256. */
  *insertApproval(a: NewApproval): Op<ApprovalRow> {
    const text = `INSERT INTO approvals (id, workspace, agent_id, contract_id, status, exact_content, fingerprint, created_at)
       VALUES ($1, $2, $3, $4, 'pending', $5, $6, handoff_now()) RETURNING ${cols()}`;
    const values = [
      newApprovalId(),
      a.workspace,
      a.agent_id,
      a.contract_id,
      a.exact_content,
      fingerprintOf(a.exact_content),
    ];
    return (yield* q<ApprovalRow>(text, values)).rows[0];
  },
  /** APPROVAL_NOT_FOUND (3), APPROVAL_TRANSITION_REFUSED (1); a repeat of the current status changes nothing. */
  *decideApproval(id: string, decision: ApprovalStatus, by: string | null, note: string | null): Op<DecideResult> {
    const row = (yield* q<ApprovalRow>(LOCKED, [id])).rows[0];
    if (row === undefined) throw approvalNotFound(id);
    if (judgeDecision(row, decision) === 'noop') return { row, previous: row.status, changed: false };
    const updated = yield* q<ApprovalRow>(
      `UPDATE approvals SET status = $1, decided_at = handoff_now(), decided_by = $2, decision_note = $3
        WHERE id = $4 AND status = $5 RETURNING ${cols()}`,
      [decision, by, note, id, row.status],
    );
    return { row: updated.rows[0], previous: row.status, changed: true };
  },
  /** approved → used by the handoff row `handoffId` (the finalize of the executing turn); decided_at stays. */
  *markApprovalUsed(id: string, handoffId: number): Op<boolean> {
    const text = `UPDATE approvals SET status = 'used', used_at = handoff_now(), used_by_handoff_id = $1
                   WHERE id = $2 AND status = 'approved'`;
    return (yield* q(text, [handoffId, id])).rowCount === 1;
  },
  /** approved → used by one tool call the pre-tool gate let run. */
  *markApprovalUsedByCall(id: string, u: CallUse): Op<boolean> {
    const text = `UPDATE approvals SET status = 'used', used_at = handoff_now(), used_by_handoff_id = $1,
                  used_by_contract_id = $2, used_by_tool_use_id = $3 WHERE id = $4 AND status = 'approved'`;
    return (yield* q(text, [u.handoffId, u.contractId, u.toolUseId, id])).rowCount === 1;
  },
};
