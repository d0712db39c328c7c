import type { PageKey } from './page.js';

/** The filters of `contract list` (its statement: queries/handoffs.ts). */
export interface HandoffFilters {
  agent_id?: string;
  contract_id?: string;
  agent_state?: string;
  harness_id?: string;
  workspace?: string;
  kind?: string;
  plan_task_id?: string;
  parent_handoff_id?: number;
  /** `true`: any cut_reason; a string: that reason. Either way a DISPATCHED row must be stale or gate-seen. */
  cut?: true | string;
  /**
   * `--stale-after` as a time: with `cut`, a DISPATCHED row counts only once last written before it (or seen by the
   * gate). Omitted: the cut rows as stored.
   */
  stale_before?: string;
  /** Compared as text: `created_at >= since`. */
  since?: string;
  /** Includes the whole given prefix: `substr(created_at, 1, length(until)) <= until`. */
  until?: string;
  /** The page after this row (keyset, page.ts). */
  after?: PageKey;
  limit: number;
}

/** The filters compared for equality, each a column of the same name. */
export const EXACT_FILTERS = [
  'agent_id',
  'contract_id',
  'agent_state',
  'harness_id',
  'workspace',
  'kind',
  'plan_task_id',
  'parent_handoff_id',
] as const;
