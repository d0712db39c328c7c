/**
 * Evidence rows and the reads `evidence orphans` and `gc` need from `receipts`, written once for both backends. A
 * store read as it is before migration 0004 has no evidence.contract_id (it reads as NULL), before 0002 no receipts.
 */
import {
  evidenceSelect,
  evidenceWhere,
  type EvidenceFilter,
  type EvidenceRow,
  type NewEvidence,
} from '../evidence-rows.js';
import { q, schemaAtLeast, type Op } from './op.js';

const CONTRACT_ID_SINCE = 4;
const RECEIPTS_SINCE = 2;
const EVIDENCE_SINCE = 1;

export const evidenceReads = {
  *getEvidence(id: number): Op<EvidenceRow | undefined> {
    const select = evidenceSelect(yield* schemaAtLeast(CONTRACT_ID_SINCE));
    return (yield* q<EvidenceRow>(`${select} WHERE e.id = $1`, [id])).rows[0];
  },
  /** By brief (and AC), by the contract `evidence add --draft-id` linked (migration 0004), or both. */
  *listEvidence(f: EvidenceFilter): Op<EvidenceRow[]> {
    const select = evidenceSelect(yield* schemaAtLeast(CONTRACT_ID_SINCE));
    const values: unknown[] = [];
    const text = `${select} ${evidenceWhere(f, (v) => `$${values.push(v)}`)}`;
    return (yield* q<EvidenceRow>(text, values)).rows;
  },
  *countEvidence(): Op<number> {
    return (yield* q<{ n: number }>('SELECT COUNT(*) AS n FROM evidence')).rows[0].n;
  },
  /** Every stored blob reference: evidence.artifact_path and receipts.stdout_path / stderr_path. */
  *referencedPaths(): Op<Set<string>> {
    const evidence = 'SELECT artifact_path AS p FROM evidence WHERE artifact_path IS NOT NULL';
    const receipts = `SELECT stdout_path AS p FROM receipts WHERE stdout_path IS NOT NULL
                      UNION ALL SELECT stderr_path AS p FROM receipts WHERE stderr_path IS NOT NULL`;
    const paths = new Set<string>();
    for (const r of (yield* q<{ p: string }>(evidence, [], EVIDENCE_SINCE)).rows) paths.add(r.p);
    for (const r of (yield* q<{ p: string }>(receipts, [], RECEIPTS_SINCE)).rows) paths.add(r.p);
    return paths;
  },
  *blobRows(): Op<{ id: number; artifact_path: string }[]> {
    const text = 'SELECT id, artifact_path FROM evidence WHERE artifact_path IS NOT NULL ORDER BY id';
    return (yield* q<{ id: number; artifact_path: string }>(text, [], EVIDENCE_SINCE)).rows;
  },
};

export const evidenceWrites = {
  /** Inserts one row; returns its id. */
  *insertEvidence(r: NewEvidence): Op<number> {
    const linked = r.contract_id != null;
    const { rows } = yield* q<{ id: number }>(
      `INSERT INTO evidence (brief_id, ac_id, task_id, type, text, artifact_path, size_bytes, sha256, created_by_agent,
                             handoff_id, receipt_id${linked ? ', contract_id' : ''})
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11${linked ? ', $12' : ''}) RETURNING id`,
      [
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
        ...(linked ? [r.contract_id] : []),
      ],
    );
    return rows[0].id;
  },
  /** Finalize convergence: the row's evidence set is replaced. */
  *deleteEvidenceOfHandoff(handoffId: number): Op<number> {
    return (yield* q('DELETE FROM evidence WHERE handoff_id = $1', [handoffId])).rowCount;
  },
};
