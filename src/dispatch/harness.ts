/**
 * Harness run ids on rows (the gate's second lookup lane): which chains carry a run id, and the set-once
 * claim shared by `contract claim` and the gate's auto-claim. Call these inside the store transaction that writes,
 * holding the `harness:<id>` lock (harnessLock), so the decision cannot race on either backend.
 */
import { HandoffError } from '../errors.js';
import type { HandoffRow } from '../store/handoff-row.js';
import type { StoreReads, StoreTx } from '../store/store.js';

/** The lock every transaction that gives a row this harness id takes (with the contract's own). */
export const harnessLock = (harnessId: string): string => `harness:${harnessId}`;

/** The live tips of the chains whose rows carry `harnessId` (one per chain, in row order). */
export async function harnessTips(s: StoreReads, harnessId: string): Promise<HandoffRow[]> {
  const tips: HandoffRow[] = [];
  for (const row of await s.rowsWithHarnessId(harnessId)) {
    const chain = await s.followChain(row);
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

/** On a live tip. */
export async function claimTip(t: StoreTx, tip: HandoffRow, harnessId: string): Promise<ClaimOutcome> {
  const others = (await harnessTips(t, harnessId)).filter((x) => x.id !== tip.id);
  if (others.length > 0) return { kind: 'in_use', holders: others.map((t) => t.contract_id) };
  if (tip.harness_id === harnessId) return { kind: 'unchanged' };
  if (tip.harness_id !== null) return { kind: 'conflict', current: tip.harness_id };
  return (await t.setHarnessIdIfNull(tip.id, harnessId))
    ? { kind: 'claimed' }
    : { kind: 'conflict', current: '(set concurrently)' };
}

export const harnessInUse = (hid: string, holders: string[]): HandoffError =>
  new HandoffError(
    'HARNESS_ID_IN_USE',
    `harness id ${JSON.stringify(hid)} is already carried by contract ${holders.join(', ')}`,
    { harness_id: hid, contract_ids: holders },
  );
