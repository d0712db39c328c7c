/**
 * `contract claim`: ties a harness run id to a contract's live tip, set-once, allowed in
 * every state (COMPLETE included: harness_id is a link, not part of the write-once verdict). Never creates the DB.
 */
import { HandoffError } from '../errors.js';
import type { Env } from '../paths.js';
import type { HandoffRow } from '../store/handoff-row.js';
import { mayHaveStore } from '../store/open-store.js';
import type { StoreReads } from '../store/store.js';
import { claimTip, harnessInUse, harnessLock } from './harness.js';

export interface ClaimResult {
  tip: HandoffRow;
  harnessId: string;
  changed: boolean;
}

const rowNotFound = (id: string): HandoffError =>
  new HandoffError(
    'ROW_NOT_FOUND',
    `no handoff row for ${id}; a contract gets a row when it is dispatched or finalized`,
    { contract_id: id },
  );

export async function claim(env: Env, cwd: string, contractId: string, harnessId: string): Promise<ClaimResult> {
  if (!mayHaveStore(env, cwd)) throw rowNotFound(contractId);
  const { openStore } = await import('../store/open-store.js');
  const store = await openStore(env, cwd, 'writer');
  if (store === null) throw rowNotFound(contractId);
  try {
    const tip = await tipOf(store, contractId);
    // The tip's lock and the harness id's: a concurrent claim, dispatch or gate auto-claim on any host waits.
    return await store.tx(
      async (t): Promise<ClaimResult> => {
        const again = await tipOf(t, contractId);
        if (again.id !== tip.id)
          throw new HandoffError('STORE_BUSY', `the chain of ${contractId} grew during the claim; run it again`);
        const outcome = await claimTip(t, again, harnessId);
        switch (outcome.kind) {
          case 'in_use':
            throw harnessInUse(harnessId, outcome.holders);
          case 'conflict':
            throw new HandoffError(
              'HARNESS_ID_CONFLICT',
              `contract ${again.contract_id} already carries harness id ${JSON.stringify(outcome.current)}, not ${JSON.stringify(harnessId)} (set-once)`,
              { contract_id: again.contract_id, harness_id: outcome.current },
            );
          case 'unchanged':
            return { tip: again, harnessId, changed: false };
          case 'claimed':
            return { tip: { ...again, harness_id: harnessId }, harnessId, changed: true };
        }
      },
      { lock: [tip.contract_id, harnessLock(harnessId)] },
    );
  } finally {
    await store.close();
  }
}

/** The live tip of `contractId`'s chain; ROW_NOT_FOUND without a row. */
async function tipOf(s: StoreReads, contractId: string): Promise<HandoffRow> {
  const row = await s.getHandoffByContractId(contractId);
  if (row === undefined) throw rowNotFound(contractId);
  const chain = await s.followChain(row);
  return chain[chain.length - 1];
}
