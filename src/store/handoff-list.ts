/**
 * `contract list`: every filter applied in SQL before LIMIT, newest first. Running is not
 * cut: a DISPATCHED row counts as cut only once its updated_at is older than the stale cut-off
 * or the stop gate has judged a stop of it (gate_seen_at); a captured IN_PROGRESS row is always cut.
 */
import { guard, hasTable, type Db } from './db.js';
import { EXACT_FILTERS, type HandoffFilters } from './handoff-filters.js';
import { toHandoffRow, type HandoffRow } from './handoff-row.js';
import { afterKey, named } from './page.js';

export function listHandoffs(db: Db, f: HandoffFilters): HandoffRow[] {
  if (!hasTable(db, 'handoffs')) return [];
  const { where, params } = whereOf(f);
  if (f.after !== undefined) where.push(afterKey(f.after, named(params)));
  params.limit = f.limit;
  const sql = `SELECT * FROM handoffs ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
               ORDER BY created_at DESC, id DESC LIMIT @limit`;
  return guard(db, () => (db.prepare(sql).all(params) as Record<string, unknown>[]).map(toHandoffRow));
}

/** How many rows the filters match, whatever the page (`contract list --total`). */
export function countHandoffs(db: Db, f: HandoffFilters): number {
  if (!hasTable(db, 'handoffs')) return 0;
  const { where, params } = whereOf(f);
  const sql = `SELECT COUNT(*) AS n FROM handoffs ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}`;
  return guard(db, () => Number((db.prepare(sql).get(params) as { n: number }).n));
}

function whereOf(f: HandoffFilters): { where: string[]; params: Record<string, unknown> } {
  const where: string[] = [];
  const params: Record<string, unknown> = {};
  for (const key of EXACT_FILTERS) {
    if (f[key] !== undefined) {
      where.push(`${key} = @${key}`);
      params[key] = f[key];
    }
  }
  if (f.cut !== undefined) {
    where.push(f.cut === true ? 'cut_reason IS NOT NULL' : 'cut_reason = @cut');
    if (f.cut !== true) params.cut = f.cut;
    if (f.stale_before !== undefined) {
      where.push(`(agent_state <> 'DISPATCHED' OR gate_seen_at IS NOT NULL OR updated_at < @stale_before)`);
      params.stale_before = f.stale_before;
    }
  }
  if (f.since !== undefined) {
    where.push('created_at >= @since');
    params.since = f.since;
  }
  if (f.until !== undefined) {
    where.push('substr(created_at, 1, length(@until)) <= @until');
    params.until = f.until;
  }
  return { where, params };
}

export type Liveness = 'running' | 'cut';

/** A row's liveness: null for a closed row; a DISPATCHED row is running until stale or seen by the gate. */
export function livenessOf(row: HandoffRow, staleBefore: string): Liveness | null {
  if (row.cut_reason === null) return null;
  if (row.agent_state !== 'DISPATCHED') return 'cut';
  return (row.gate_seen_at ?? null) !== null || row.updated_at < staleBefore ? 'cut' : 'running';
}
