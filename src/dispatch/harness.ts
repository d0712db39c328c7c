/**
 * Harness run ids on rows (dispatch-and-gate.md §2, §4.3 lane 2): which chains carry a run id, and the set-once
 * claim shared by `contract claim` and the gate's auto-claim. Call these inside the IMMEDIATE transaction that
 * writes, so the decision cannot race.
 */
import { EXIT, HandoffError } from '../errors.js';
import { followChain, type HandoffRow } from '../store/handoffs.js';
import { rowsWithHarnessId, setHarnessIdIfNull } from '../store/dispatch-rows.js';
import type { Db } from '../store/db.js';

/** The live tips of the chains whose rows carry `harnessId` (one per chain, in row order). */
export function harnessTips(db: Db, harnessId: string): HandoffRow[] {
  const tips: HandoffRow[] = [];
  for (const row of rowsWithHarnessId(db, harnessId)) {
    const chain = followChain(db, row);
    const tip = chain[chain.length - 1];
    if (!tips.some((t) => t.id === tip.id)) tips.push(tip);
  }
  return tips;
}

export type ClaimOutcome =
  | { kind: 'claimed' }
  | { kind: 'unchanged' }
  | { kind: 'in_use'; holders: string[] }
  | { kind: 'conflict'; current: string };

/** §2 steps 3–6 on a live tip. */
export function claimTip(db: Db, tip: HandoffRow, harnessId: string, now: string): ClaimOutcome {
  const others = harnessTips(db, harnessId).filter((t) => t.id !== tip.id);
  if (others.length > 0) return { kind: 'in_use', holders: others.map((t) => t.contract_id) };
  if (tip.harness_id === harnessId) return { kind: 'unchanged' };
  if (tip.harness_id !== null) return { kind: 'conflict', current: tip.harness_id };
  return setHarnessIdIfNull(db, tip.id, harnessId, now) ? { kind: 'claimed' } : { kind: 'conflict', current: '(set concurrently)' };
}

export const harnessInUse = (hid: string, holders: string[]): HandoffError =>
  new HandoffError(
    'HARNESS_ID_IN_USE',
    EXIT.REJECTED,
    `harness id ${JSON.stringify(hid)} is already carried by contract ${holders.join(', ')}`,
    { harness_id: hid, contract_ids: holders },
  );
