/**
 * The statements of the PostgreSQL store not yet shared (queries/): evidence, approvals and blobs. Same rows and
 * orders as evidence-rows.ts and approvals.ts. PostgreSQL runs
 * writers side by side (READ COMMITTED), so the read-then-write steps lock the row they depend on (`FOR UPDATE`).
 */
import { createHash } from 'node:crypto';
import {
  approvalCols,
  APPROVAL_FILTERS,
  approvalNotFound,
  fingerprintOf,
  judgeDecision,
  newApprovalId,
  type ApprovalFilters,
  type ApprovalRow,
  type ApprovalStatus,
  type DecideResult,
} from './approvals.js';
import {
  evidenceSelect,
  evidenceWhere,
  type EvidenceFilter,
  type EvidenceRow,
  type NewEvidence,
} from './evidence-rows.js';
import { afterKey } from './page.js';
import type { Run } from './pg-driver.js';
import { blobRef, type BlobRef, type NewApproval } from './store.js';

export const insertEvidence = async (run: Run, r: NewEvidence): Promise<number> =>
  (
    await run<{ id: number }>(
      `INSERT INTO evidence (brief_id, ac_id, task_id, type, text, artifact_path, size_bytes, sha256, created_by_agent,
                             handoff_id, receipt_id${r.contract_id != null ? ', contract_id' : ''})
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11${r.contract_id != null ? ', $12' : ''}) RETURNING id`,
      [
        ...[
          r.brief_id,
          r.ac_id,
          r.task_id,
          r.type,
          r.text,
          r.artifact_path,
          r.size_bytes,
          r.sha256,
          r.created_by_agent,
          r.handoff_id,
          r.receipt_id ?? null,
        ],
        ...(r.contract_id != null ? [r.contract_id] : []),
      ],
    )
  ).rows[0].id;

/** `hasContractId`: the store has migration 0004's evidence.contract_id (a store read as it is before it has not). */
export const getEvidence = async (run: Run, id: number, hasContractId: boolean): Promise<EvidenceRow | undefined> =>
  (await run<EvidenceRow>(`${evidenceSelect(hasContractId)} WHERE e.id = $1`, [id])).rows[0];

export async function listEvidence(run: Run, f: EvidenceFilter, hasContractId: boolean): Promise<EvidenceRow[]> {
  const values: unknown[] = [];
  const sql = `${evidenceSelect(hasContractId)} ${evidenceWhere(f, (v) => `$${values.push(v)}`)}`;
  return (await run<EvidenceRow>(sql, values)).rows;
}

export const deleteEvidenceOfHandoff = async (run: Run, handoffId: number): Promise<number> =>
  (await run('DELETE FROM evidence WHERE handoff_id = $1', [handoffId])).rowCount;

export const countEvidence = async (run: Run): Promise<number> =>
  (await run<{ n: number }>('SELECT COUNT(*) AS n FROM evidence')).rows[0].n;

/** Every stored blob reference (evidence.artifact_path; receipts.stdout_path / stderr_path from version 2). */
export async function referencedPaths(run: Run, version: number): Promise<Set<string>> {
  const receipts = `UNION ALL SELECT stdout_path FROM receipts WHERE stdout_path IS NOT NULL
                    UNION ALL SELECT stderr_path FROM receipts WHERE stderr_path IS NOT NULL`;
  const { rows } = await run<{ p: string }>(
    `SELECT artifact_path AS p FROM evidence WHERE artifact_path IS NOT NULL ${version >= 2 ? receipts : ''}`,
  );
  return new Set(rows.map((r) => r.p));
}

export const blobRows = async (run: Run): Promise<{ id: number; artifact_path: string }[]> =>
  (
    await run<{ id: number; artifact_path: string }>(
      'SELECT id, artifact_path FROM evidence WHERE artifact_path IS NOT NULL ORDER BY id',
    )
  ).rows;

/** `useColumns`: the store has migration 0004's used columns (a store read as it is before it has not). */
export const getApproval = async (
  run: Run,
  id: string,
  useColumns: boolean,
  forUpdate = false,
): Promise<ApprovalRow | undefined> =>
  (
    await run<ApprovalRow>(
      `SELECT ${approvalCols(useColumns)} FROM approvals WHERE id = $1${forUpdate ? ' FOR UPDATE' : ''}`,
      [id],
    )
  ).rows[0];

/** The finalize that stores the executing turn: approved → used, by `handoffId`, at the server's clock. */
export const markApprovalUsed = async (run: Run, id: string, handoffId: number): Promise<boolean> =>
  (
    await run(
      `UPDATE approvals SET status = 'used', used_at = handoff_now(), used_by_handoff_id = $1 WHERE id = $2 AND status = 'approved'`,
      [handoffId, id],
    )
  ).rowCount === 1;

/** The pre-tool gate's use: approved → used by one tool call, at the server's clock. */
export const markApprovalUsedByCall = async (
  run: Run,
  id: string,
  u: { handoffId: number; contractId: string; toolUseId: string },
): Promise<boolean> =>
  (
    await run(
      `UPDATE approvals SET status = 'used', used_at = handoff_now(), used_by_handoff_id = $1, used_by_contract_id = $2,
              used_by_tool_use_id = $3 WHERE id = $4 AND status = 'approved'`,
      [u.handoffId, u.contractId, u.toolUseId, id],
    )
  ).rowCount === 1;

export const insertApproval = async (run: Run, a: NewApproval): Promise<ApprovalRow> =>
  (
    await run<ApprovalRow>(
      `INSERT INTO approvals (id, workspace, agent_id, contract_id, status, exact_content, fingerprint, created_at)
       VALUES ($1, $2, $3, $4, 'pending', $5, $6, handoff_now()) RETURNING ${approvalCols(true)}`,
      [newApprovalId(), a.workspace, a.agent_id, a.contract_id, a.exact_content, fingerprintOf(a.exact_content)],
    )
  ).rows[0];

/**
 * The row is read `FOR UPDATE`, so a concurrent decide waits for this one and then judges the new status
 * (the no-op or the refusal), as SQLite's IMMEDIATE transaction makes it.
 */
export async function decideApproval(
  run: Run,
  id: string,
  decision: ApprovalStatus,
  by: string | null,
  note: string | null,
): Promise<DecideResult> {
  const row = await getApproval(run, id, true, true);
  if (row === undefined) throw approvalNotFound(id);
  if (judgeDecision(row, decision) === 'noop') return { row, previous: row.status, changed: false };
  const updated = await run<ApprovalRow>(
    `UPDATE approvals SET status = $1, decided_at = handoff_now(), decided_by = $2, decision_note = $3
      WHERE id = $4 AND status = $5 RETURNING ${approvalCols(true)}`,
    [decision, by, note, id, row.status],
  );
  return { row: updated.rows[0], previous: row.status, changed: true };
}

export async function listApprovals(run: Run, f: ApprovalFilters, useColumns: boolean): Promise<ApprovalRow[]> {
  const { where, values } = approvalWhere(f);
  if (f.after !== undefined) where.push(afterKey(f.after, (v) => `$${values.push(v)}`));
  const sql = `SELECT ${approvalCols(useColumns)} FROM approvals ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
               ORDER BY created_at DESC, id DESC LIMIT $${values.push(f.limit)}`;
  return (await run<ApprovalRow>(sql, values)).rows;
}

export async function countApprovals(run: Run, f: ApprovalFilters): Promise<number> {
  const { where, values } = approvalWhere(f);
  const sql = `SELECT COUNT(*) AS n FROM approvals ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}`;
  return Number((await run<{ n: string | number }>(sql, values)).rows[0].n);
}

function approvalWhere(f: ApprovalFilters): { where: string[]; values: unknown[] } {
  const where: string[] = [];
  const values: unknown[] = [];
  for (const key of APPROVAL_FILTERS) if (f[key] !== undefined) where.push(`${key} = $${values.push(f[key])}`);
  return { where, values };
}

/** Stores `bytes` under their sha256; a blob already stored is kept as it is (content-addressed, deduplicated). */
export async function putBlob(run: Run, bytes: Buffer): Promise<BlobRef> {
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  await run('INSERT INTO blobs (sha256, bytes, size) VALUES ($1, $2, $3) ON CONFLICT (sha256) DO NOTHING', [
    sha256,
    bytes,
    bytes.length,
  ]);
  return { sha256, size: bytes.length, ref: blobRef(sha256) };
}

export const getBlob = async (run: Run, sha256: string): Promise<Buffer | undefined> =>
  (await run<{ bytes: Buffer }>('SELECT bytes FROM blobs WHERE sha256 = $1', [sha256])).rows[0]?.bytes;

export async function blobSizes(run: Run, sha256s: readonly string[]): Promise<Map<string, number>> {
  if (sha256s.length === 0) return new Map();
  const { rows } = await run<{ sha256: string; size: number }>(
    'SELECT sha256, size FROM blobs WHERE sha256 = ANY($1::text[])',
    [[...new Set(sha256s)]],
  );
  return new Map(rows.map((r) => [r.sha256, Number(r.size)]));
}
