/** The finalize UPSERT's row and merge policy (the statement: queries/handoffs.ts upsertFinalRow). */
import { loadSqlite } from './sqlite.js';

export interface FinalRow {
  contract_id: string;
  agent_id: string;
  workspace: string;
  agent_state: string;
  /** `JSON.stringify` of the canonical envelope with the capture markers removed. */
  json: string;
  /** Set-once: only used when the row has no binding yet. */
  plan_task_id: string | null;
  /** The draft revision this envelope was read at (under the draft's lock; 0 when unknown); the row keeps the higher. */
  mirror_rev?: number;
  /** What this close saw of each cited receipt (a JSON array; migration 0012); null when it cites none. */
  receipt_freshness_json?: string | null;
  now: string;
}

/**
 * The merge policy (convergence of a row that is not COMPLETE): the row is inserted, or a row that is not COMPLETE
 * converges (state, envelope, cut_reason → NULL, plan_task_id set-once, updated_at); `finalized_at` (migration 0003)
 * is set once, by the first write of a closing state, and kept by every later convergence. RETURNING id: none when
 * the row is COMPLETE (nothing written).
 */
export const FINAL_ROW_MERGE = `ON CONFLICT (contract_id) DO UPDATE SET
         agent_state      = excluded.agent_state,
         cut_reason       = NULL,
         raw_handoff_json = excluded.raw_handoff_json,
         plan_task_id     = COALESCE(handoffs.plan_task_id, excluded.plan_task_id),
         updated_at       = excluded.updated_at,
         finalized_at     = COALESCE(handoffs.finalized_at, excluded.finalized_at),
         mirror_rev       = CASE WHEN excluded.mirror_rev > handoffs.mirror_rev THEN excluded.mirror_rev ELSE handoffs.mirror_rev END,
         receipt_freshness_json = excluded.receipt_freshness_json
       WHERE handoffs.agent_state <> 'COMPLETE'
       RETURNING id`;

/**
 * Whether `raw_handoff_json`'s CHECK (`json_valid`) accepts `json`, asked of SQLite itself on an in-memory
 * connection (it refuses, for one, documents nested deeper than 1000 levels). Finalize asks this before it creates
 * the store file, so a write SQLite would refuse never leaves a new DB behind.
 */
export function sqliteAcceptsJson(json: string): boolean {
  const Database = loadSqlite();
  const mem = new Database(':memory:');
  try {
    return (mem.prepare('SELECT json_valid(?) AS ok').get(json) as { ok: number }).ok === 1;
  } finally {
    mem.close();
  }
}
