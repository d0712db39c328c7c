/** Evidence rows, their columns and the filters of `evidence list` (the statements: queries/evidence.ts). */

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
