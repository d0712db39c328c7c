/** Plain-text rendering shared by the brief and evidence verbs (human mode only); cells are escaped. */
import { escapeCell, renderFields, renderTable } from '../render/table.js';
import type { EvidenceRow } from '../store/evidence-rows.js';
import type { BriefShow } from './brief-service.js';

/** Left-aligned columns separated by two spaces. */
export const table = renderTable;

export const storageOf = (row: EvidenceRow): 'inline' | 'blob' => (row.artifact_path === null ? 'inline' : 'blob');

export const evidenceTable = (rows: EvidenceRow[]): string =>
  table(
    ['id', 'ac_id', 'type', 'storage', 'size', 'sha256', 'created_by', 'created_at'],
    rows.map((r) => [
      r.id,
      r.ac_id,
      r.type,
      storageOf(r),
      r.size_bytes,
      r.sha256.slice(0, 12),
      r.created_by_agent,
      r.created_at,
    ]),
  );

/** `key: value` lines of one row (evidence show). */
export const fields = (obj: Record<string, unknown>): string => renderFields(obj);

/** `brief show`: the header, title and objective, then one line per acceptance criterion. */
export function briefText(r: BriefShow): string {
  const b = r.brief;
  const lines = [
    `Brief ${escapeCell(b.name)} (id=${b.id}, workspace=${escapeCell(b.workspace)}, created ${b.created_at})`,
  ];
  if (b.title !== null) lines.push(`Title: ${escapeCell(b.title)}`);
  if (b.objective !== null) lines.push(`Objective: ${escapeCell(b.objective)}`);
  if (r.acceptance_criteria.length === 0) lines.push('No acceptance criteria: evidence is accepted under any ac id.');
  for (const a of r.acceptance_criteria)
    lines.push(`  ${a.position}. ${a.ac_id} [${a.evidence_count} evidence] ${escapeCell(a.description)}`);
  for (const u of r.undeclared_ac_evidence) lines.push(`  (undeclared) ${u.ac_id} [${u.evidence_count} evidence]`);
  return lines.join('\n');
}
