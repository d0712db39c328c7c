/**
 * Approvals: their rows, statuses and transition rule (the statements: queries/approvals.ts). Transitions are decided
 * inside the transaction that writes (`UPDATE … WHERE id = $4 AND status = $5`), so concurrent decides cannot both win.
 */
import { createHash } from 'node:crypto';
import { HandoffError } from '../errors.js';
import { mintApprovalId } from '../ids.js';
import type { ApprovalLookupResult } from '../validator/types.js';
import type { PageKey } from './page.js';

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
export { mintApprovalId as newApprovalId };

export const fingerprintOf = (content: string): string => createHash('sha256').update(content, 'utf8').digest('hex');

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
