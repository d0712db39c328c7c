/** `contract list` (store-and-finalize.md §9): every filter applied in SQL before LIMIT, newest first. */
import { guard, hasTable, type Db } from './db.js';
import { toHandoffRow, type HandoffRow } from './handoff-row.js';

export interface HandoffFilters {
  agent_id?: string;
  contract_id?: string;
  agent_state?: string;
  harness_id?: string;
  workspace?: string;
  kind?: string;
  plan_task_id?: string;
  parent_handoff_id?: number;
  /** `true`: any cut_reason; a string: that reason. */
  cut?: true | string;
  /** Compared as text: `created_at >= since`. */
  since?: string;
  /** Includes the whole given prefix: `substr(created_at, 1, length(until)) <= until`. */
  until?: string;
  limit: number;
}

const EXACT = ['agent_id', 'contract_id', 'agent_state', 'harness_id', 'workspace', 'kind', 'plan_task_id', 'parent_handoff_id'] as const;

export function listHandoffs(db: Db, f: HandoffFilters): HandoffRow[] {
  if (!hasTable(db, 'handoffs')) return [];
  const where: string[] = [];
  const params: Record<string, unknown> = { limit: f.limit };
  for (const key of EXACT) {
    if (f[key] !== undefined) {
      where.push(`${key} = @${key}`);
      params[key] = f[key];
    }
  }
  if (f.cut === true) where.push('cut_reason IS NOT NULL');
  else if (f.cut !== undefined) {
    where.push('cut_reason = @cut');
    params.cut = f.cut;
  }
  if (f.since !== undefined) {
    where.push('created_at >= @since');
    params.since = f.since;
  }
  if (f.until !== undefined) {
    where.push('substr(created_at, 1, length(@until)) <= @until');
    params.until = f.until;
  }
  const sql = `SELECT * FROM handoffs ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
               ORDER BY created_at DESC, id DESC LIMIT @limit`;
  return guard(db, () => (db.prepare(sql).all(params) as Record<string, unknown>[]).map(toHandoffRow));
}
