/**
 * The statements of the PostgreSQL store other than `handoffs`: briefs and acceptance criteria, evidence, approvals, receipts, the gate's rejection counter and blobs. Same
 * rows and orders as briefs.ts, evidence-rows.ts, approvals.ts, receipts.ts and gate-rejections.ts. PostgreSQL runs
 * writers side by side (READ COMMITTED), so the read-then-write steps lock the row they depend on (`FOR UPDATE`).
 */
import { createHash } from 'node:crypto';
import { RECEIPT_COLUMNS, type ReceiptRow } from './receipt-row.js';
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
import type { AcRow, BriefRow, BriefSummary } from './briefs.js';
import {
  evidenceSelect,
  evidenceWhere,
  type EvidenceFilter,
  type EvidenceRow,
  type NewEvidence,
} from './evidence-rows.js';
import type { RejectionRow } from './gate-rejections.js';
import { afterKey } from './page.js';
import type { Run } from './pg-driver.js';
import { blobRef, type BlobRef, type NewApproval, type NewBrief, type RejectionPut } from './store.js';

const BRIEF_COLS = 'id, workspace, name, title, objective, created_at';

export const findBrief = async (run: Run, workspace: string, name: string): Promise<BriefRow | undefined> =>
  (await run<BriefRow>(`SELECT ${BRIEF_COLS} FROM briefs WHERE workspace = $1 AND name = $2`, [workspace, name]))
    .rows[0];

export const findBriefIgnoringCase = async (run: Run, workspace: string, name: string): Promise<BriefRow | undefined> =>
  (
    await run<BriefRow>(
      `SELECT ${BRIEF_COLS} FROM briefs WHERE workspace = $1 AND handoff_nocase(name) = handoff_nocase($2)`,
      [workspace, name],
    )
  ).rows[0];

/** The workspaces holding a brief of exactly this name, in byte order (as SQLite's BINARY collation). */
export const workspacesWithBrief = async (run: Run, name: string): Promise<string[]> =>
  (
    await run<{ workspace: string }>(
      'SELECT workspace FROM briefs WHERE name = $1 GROUP BY workspace ORDER BY workspace',
      [name],
    )
  ).rows.map((r) => r.workspace);

export const findBriefById = async (run: Run, id: number): Promise<BriefRow | undefined> =>
  (await run<BriefRow>(`SELECT ${BRIEF_COLS} FROM briefs WHERE id = $1`, [id])).rows[0];

export const insertBrief = async (run: Run, b: NewBrief): Promise<BriefRow> =>
  (
    await run<BriefRow>(
      `INSERT INTO briefs (workspace, name, title, objective) VALUES ($1, $2, $3, $4) RETURNING ${BRIEF_COLS}`,
      [b.workspace, b.name, b.title, b.objective],
    )
  ).rows[0];

export const listAcs = async (run: Run, briefId: number): Promise<AcRow[]> =>
  (
    await run<AcRow>(
      'SELECT ac_id, description, position FROM acceptance_criteria WHERE brief_id = $1 ORDER BY position, id',
      [briefId],
    )
  ).rows;

/** Appends after the brief's last position; the brief row is locked first, so concurrent appends do not interleave. */
export async function appendAcs(
  run: Run,
  briefId: number,
  acs: { ac_id: string; description: string }[],
): Promise<AcRow[]> {
  await run('SELECT id FROM briefs WHERE id = $1 FOR UPDATE', [briefId]);
  const last = (
    await run<{ p: number }>('SELECT COALESCE(MAX(position), 0) AS p FROM acceptance_criteria WHERE brief_id = $1', [
      briefId,
    ])
  ).rows[0].p;
  const out: AcRow[] = [];
  for (const [i, ac] of acs.entries()) {
    const position = last + i + 1;
    await run('INSERT INTO acceptance_criteria (brief_id, ac_id, description, position) VALUES ($1, $2, $3, $4)', [
      briefId,
      ac.ac_id,
      ac.description,
      position,
    ]);
    out.push({ ac_id: ac.ac_id, description: ac.description, position });
  }
  return out;
}

export const listBriefs = async (run: Run, workspace: string): Promise<BriefSummary[]> =>
  (
    await run<BriefSummary>(
      `SELECT b.id, b.name, b.title, b.created_at,
              (SELECT COUNT(*) FROM acceptance_criteria a WHERE a.brief_id = b.id) AS ac_count,
              (SELECT COUNT(*) FROM evidence e WHERE e.brief_id = b.id) AS evidence_count
         FROM briefs b WHERE b.workspace = $1 ORDER BY handoff_nocase(b.name), b.name, b.id`,
      [workspace],
    )
  ).rows;

export async function evidenceCountsByAc(run: Run, briefId: number): Promise<Map<string, number>> {
  const { rows } = await run<{ ac_id: string; n: number }>(
    'SELECT ac_id, COUNT(*) AS n FROM evidence WHERE brief_id = $1 GROUP BY ac_id ORDER BY ac_id',
    [briefId],
  );
  return new Map(rows.map((r) => [r.ac_id, r.n]));
}

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

/**
 * `useColumns`: the store has migration 0004's used columns (a store read as it is before it has not); `gateUse`
 * migration 0008's used_by_tool_use_id.
 */
export const getApproval = async (
  run: Run,
  id: string,
  useColumns: boolean,
  forUpdate = false,
  gateUse = false,
): Promise<ApprovalRow | undefined> =>
  (
    await run<ApprovalRow>(
      `SELECT ${approvalCols(useColumns, gateUse)} FROM approvals WHERE id = $1${forUpdate ? ' FOR UPDATE' : ''}`,
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
       VALUES ($1, $2, $3, $4, 'pending', $5, $6, handoff_now()) RETURNING ${approvalCols(true, true)}`,
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
  const row = await getApproval(run, id, true, true, true);
  if (row === undefined) throw approvalNotFound(id);
  if (judgeDecision(row, decision) === 'noop') return { row, previous: row.status, changed: false };
  const updated = await run<ApprovalRow>(
    `UPDATE approvals SET status = $1, decided_at = handoff_now(), decided_by = $2, decision_note = $3
      WHERE id = $4 AND status = $5 RETURNING ${approvalCols(true, true)}`,
    [decision, by, note, id, row.status],
  );
  return { row: updated.rows[0], previous: row.status, changed: true };
}

export async function listApprovals(
  run: Run,
  f: ApprovalFilters,
  useColumns: boolean,
  gateUse = false,
): Promise<ApprovalRow[]> {
  const { where, values } = approvalWhere(f);
  if (f.after !== undefined) where.push(afterKey(f.after, (v) => `$${values.push(v)}`));
  const sql = `SELECT ${approvalCols(useColumns, gateUse)} FROM approvals ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
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

const RECEIPT_LIST = RECEIPT_COLUMNS.join(', ');

export async function insertReceipt(run: Run, row: ReceiptRow): Promise<void> {
  const params = RECEIPT_COLUMNS.map((_, i) => `$${i + 1}`).join(', ');
  await run(
    `INSERT INTO receipts (${RECEIPT_LIST}) VALUES (${params})`,
    RECEIPT_COLUMNS.map((c) => row[c]),
  );
}

export const getReceipt = async (run: Run, receiptId: string): Promise<ReceiptRow | undefined> =>
  (await run<ReceiptRow>(`SELECT ${RECEIPT_LIST} FROM receipts WHERE receipt_id = $1`, [receiptId])).rows[0];

export const listReceiptsByContracts = async (run: Run, contractIds: readonly string[]): Promise<ReceiptRow[]> =>
  (
    await run<ReceiptRow>(
      `SELECT ${RECEIPT_LIST} FROM receipts WHERE contract_id = ANY($1::text[]) ORDER BY started_at DESC, receipt_id DESC`,
      [contractIds],
    )
  ).rows;

export const getRejection = async (run: Run, key: string): Promise<RejectionRow | undefined> =>
  (
    await run<RejectionRow>(
      'SELECT key, attempts, tripped, last_codes_json, contract_id, updated_at FROM gate_rejections WHERE key = $1',
      [key],
    )
  ).rows[0];

export async function putRejection(run: Run, r: RejectionPut): Promise<void> {
  await run(
    `INSERT INTO gate_rejections (key, attempts, tripped, last_codes_json, contract_id, updated_at)
     VALUES ($1, $2, $3, $4, $5, handoff_now())
     ON CONFLICT (key) DO UPDATE SET attempts = excluded.attempts, tripped = excluded.tripped,
       last_codes_json = excluded.last_codes_json, contract_id = excluded.contract_id, updated_at = excluded.updated_at`,
    [r.key, r.attempts, r.tripped ? 1 : 0, JSON.stringify(r.codes), r.contractId],
  );
}

export const deleteRejection = async (run: Run, key: string): Promise<number> =>
  (await run('DELETE FROM gate_rejections WHERE key = $1', [key])).rowCount;

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
