/** Evidence rows and the reads `evidence orphans` needs from `receipts`. */
import { hasTable, type Db } from './db.js';

export type EvidenceType = 'text' | 'file' | 'command_output' | 'url' | 'screenshot';

export interface NewEvidence {
  brief_id: number;
  ac_id: string;
  task_id: string | null;
  type: EvidenceType;
  text: string | null;
  artifact_path: string | null;
  size_bytes: number;
  sha256: string;
  created_by_agent: string | null;
  handoff_id: number | null;
  receipt_id?: string | null;
  /** The contract `evidence add --draft-id` linked it to (migration 0004); handoff_id stays finalize's. */
  contract_id?: string | null;
}

/** A row as exposed in JSON: the columns plus the brief's name. */
export interface EvidenceRow extends Required<NewEvidence> {
  id: number;
  brief: string;
  created_at: string;
}

/** The row columns; a store read as it is before migration 0004 has no contract_id, which then reads as NULL. */
export const evidenceSelect = (
  hasContractId: boolean,
): string => `SELECT e.id, b.name AS brief, e.brief_id, e.ac_id, e.task_id, e.type, e.text, e.artifact_path,
       e.size_bytes, e.sha256, e.created_by_agent, e.handoff_id, e.receipt_id, ${hasContractId ? 'e.contract_id' : 'NULL AS contract_id'}, e.created_at
  FROM evidence e JOIN briefs b ON b.id = e.brief_id`;

const contractColumn = new WeakMap<Db, boolean>();
function selectRow(db: Db): string {
  let known = contractColumn.get(db);
  if (known === undefined) {
    known = (db.prepare('PRAGMA table_info(evidence)').all() as { name: string }[]).some(
      (c) => c.name === 'contract_id',
    );
    contractColumn.set(db, known);
  }
  return evidenceSelect(known);
}

/** The filters of `evidence list`: a brief (and one of its ACs), a linked contract, or both. */
export interface EvidenceFilter {
  briefId?: number;
  acId?: string;
  contractId?: string;
}

/** The WHERE and ORDER BY of a filter (a brief's order as before; contract only: brief, ac, time), `param` numbering. */
export function evidenceWhere(f: EvidenceFilter, param: (value: unknown) => string): string {
  const where: string[] = [];
  if (f.briefId !== undefined) where.push(`e.brief_id = ${param(f.briefId)}`);
  if (f.acId !== undefined) where.push(`e.ac_id = ${param(f.acId)}`);
  if (f.contractId !== undefined) where.push(`e.contract_id = ${param(f.contractId)}`);
  const order =
    f.briefId !== undefined
      ? f.acId !== undefined
        ? 'e.created_at, e.id'
        : 'e.ac_id, e.created_at, e.id'
      : 'e.brief_id, e.ac_id, e.created_at, e.id';
  return `${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY ${order}`;
}

/** Inserts one row; returns its id. */
export function insertEvidence(db: Db, r: NewEvidence): number {
  const res = db
    .prepare(
      `INSERT INTO evidence (brief_id, ac_id, task_id, type, text, artifact_path, size_bytes, sha256, created_by_agent,
                             handoff_id, receipt_id${r.contract_id != null ? ', contract_id' : ''})
       VALUES (@brief_id, @ac_id, @task_id, @type, @text, @artifact_path, @size_bytes, @sha256, @created_by_agent,
               @handoff_id, @receipt_id${r.contract_id != null ? ', @contract_id' : ''}) RETURNING id`,
    )
    .get({ ...r, receipt_id: r.receipt_id ?? null, contract_id: r.contract_id ?? null }) as { id: number };
  return res.id;
}

export const getEvidence = (db: Db, id: number): EvidenceRow | undefined =>
  db.prepare(`${selectRow(db)} WHERE e.id = ?`).get(id) as EvidenceRow | undefined;

export function listEvidence(db: Db, f: EvidenceFilter): EvidenceRow[] {
  const values: unknown[] = [];
  const sql = `${selectRow(db)} ${evidenceWhere(f, (v) => {
    values.push(v);
    return '?';
  })}`;
  return db.prepare(sql).all(...values) as EvidenceRow[];
}

/** Finalize convergence: the row's evidence set is replaced. */
export const deleteEvidenceOfHandoff = (db: Db, handoffId: number): number =>
  db.prepare('DELETE FROM evidence WHERE handoff_id = ?').run(handoffId).changes;

export const countEvidence = (db: Db): number =>
  (db.prepare('SELECT COUNT(*) AS n FROM evidence').get() as { n: number }).n;

/** Every stored blob path: evidence.artifact_path and receipts.stdout_path / stderr_path. */
export function referencedPaths(db: Db): Set<string> {
  const paths = new Set<string>();
  if (hasTable(db, 'evidence')) {
    for (const r of db.prepare('SELECT artifact_path AS p FROM evidence WHERE artifact_path IS NOT NULL').all() as {
      p: string;
    }[]) {
      paths.add(r.p);
    }
  }
  if (hasTable(db, 'receipts')) {
    const sql = `SELECT stdout_path AS p FROM receipts WHERE stdout_path IS NOT NULL
                 UNION ALL SELECT stderr_path AS p FROM receipts WHERE stderr_path IS NOT NULL`;
    for (const r of db.prepare(sql).all() as { p: string }[]) paths.add(r.p);
  }
  return paths;
}

export const blobRows = (db: Db): { id: number; artifact_path: string }[] =>
  hasTable(db, 'evidence')
    ? (db.prepare('SELECT id, artifact_path FROM evidence WHERE artifact_path IS NOT NULL ORDER BY id').all() as {
        id: number;
        artifact_path: string;
      }[])
    : [];
