/** Plain-text rendering shared by the brief and evidence verbs (human mode only). */
import type { EvidenceRow } from '../store/evidence-rows.js';

/** What a table cell may hold: a row's column. */
export type Cell = string | number | null | undefined;

const cell = (v: Cell): string => (v === null || v === undefined || v === '' ? '-' : String(v).replace(/\s+/g, ' '));

/** Left-aligned columns separated by two spaces. */
export function table(headers: string[], rows: Cell[][]): string {
  const cells = [headers, ...rows.map((r) => r.map(cell))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  return cells.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  ')).join('\n');
}

export const storageOf = (row: EvidenceRow): 'inline' | 'blob' => (row.artifact_path === null ? 'inline' : 'blob');

export const evidenceTable = (rows: EvidenceRow[]): string =>
  table(
    ['id', 'ac_id', 'type', 'storage', 'size', 'sha256', 'created_by', 'created_at'],
    rows.map((r) => [r.id, r.ac_id, r.type, storageOf(r), r.size_bytes, r.sha256.slice(0, 12), r.created_by_agent, r.created_at]),
  );

/** `key: value` lines of one row (evidence show). */
export const fields = (obj: Record<string, unknown>): string =>
  Object.entries(obj)
    .map(([k, v]) => `${k}: ${v === null || v === undefined ? '-' : typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join('\n');
