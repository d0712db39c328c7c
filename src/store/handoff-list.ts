/**
 * `contract list`'s liveness rule (the list itself is a shared statement: queries/handoffs.ts). Running is not cut:
 * a DISPATCHED row counts as cut only once its updated_at is older than the stale cut-off or the stop gate has
 * judged a stop of it (gate_seen_at); a captured IN_PROGRESS row is always cut.
 */
import type { HandoffRow } from './handoff-row.js';

export type Liveness = 'running' | 'cut';

/** A row's liveness: null for a closed row; a DISPATCHED row is running until stale or seen by the gate. */
export function livenessOf(row: HandoffRow, staleBefore: string): Liveness | null {
  if (row.cut_reason === null) return null;
  if (row.agent_state !== 'DISPATCHED') return 'cut';
  return (row.gate_seen_at ?? null) !== null || row.updated_at < staleBefore ? 'cut' : 'running';
}
