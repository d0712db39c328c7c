/**
 * Finalize step 10, the evidence half, over the Store interface: the
 * cited briefs and their ACs are read through the transaction handle and judged by the evidence clause's pure rule
 * (src/evidence/update-contracts.ts judgeEvidenceRefs); the inserts run on the same handle, inside finalize's one
 * transaction (never a nested one), so the row and its evidence commit or roll back together.
 */
import { judgeEvidenceRefs, type BatchError, type KnownBrief, type ResolvedEntry } from '../evidence/update-contracts.js';
import type { StoreReads, StoreTx } from '../store/store.js';

/** The briefs exist in `workspace` and declare the ACs. `reads` null: no store, so no brief exists. */
export async function checkEvidenceRefsIn(reads: StoreReads | null, entries: ResolvedEntry[], workspace: string): Promise<BatchError[]> {
  const briefs = new Map<number, KnownBrief>();
  for (const e of entries) {
    if (briefs.has(e.brief_id)) continue;
    const brief = reads === null ? undefined : await reads.findBriefById(e.brief_id);
    const acs = brief !== undefined && reads !== null ? (await reads.listAcs(brief.id)).map((a) => a.ac_id) : [];
    briefs.set(e.brief_id, { brief, acs });
  }
  return judgeEvidenceRefs(entries, briefs, { workspace });
}

/** Inserts every entry in array order; `replace` (a converging write) first drops the row's earlier set. */
export async function insertEvidenceIn(t: StoreTx, entries: ResolvedEntry[], handoffId: number, replace: boolean): Promise<number> {
  if (replace) await t.deleteEvidenceOfHandoff(handoffId);
  for (const e of entries) {
    const { index: _index, ...row } = e;
    await t.insertEvidence({ ...row, handoff_id: handoffId, receipt_id: null });
  }
  return entries.length;
}
