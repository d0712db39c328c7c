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
import { CLAIM_TOKEN_ENV, claimTokenMatches } from './claim-token.js';

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

export async function claim(
  env: Env,
  cwd: string,
  contractId: string,
  harnessId: string,
  token?: string,
): Promise<ClaimResult> {
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
        checkToken(await birthOf(t, again), token);
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

/**
 * The claim token rule, judged on the chain's birth row (a continuation inherits its chain's
 * token): a row without a hash (born before migration 0010) needs none.
 */
function checkToken(birth: HandoffRow, token: string | undefined): void {
  const hash = birth.claim_token_sha256;
  if (hash == null) return;
  if (token === undefined)
    throw new HandoffError(
      'CLAIM_TOKEN_REQUIRED',
      `contract ${birth.contract_id} has a claim token: pass the one dispatch or init printed (--claim-token, or ${CLAIM_TOKEN_ENV})`,
      { contract_id: birth.contract_id },
    );
  if (!claimTokenMatches(token, hash))
    throw new HandoffError('CLAIM_TOKEN_INVALID', `the claim token given is not contract ${birth.contract_id}'s`, {
      contract_id: birth.contract_id,
    });
}

/** The first row of `tip`'s chain. */
async function birthOf(s: StoreReads, tip: HandoffRow): Promise<HandoffRow> {
  let row = tip;
  while (row.continues_handoff_id !== null) {
    const prev = await s.getHandoffById(row.continues_handoff_id);
    if (prev === undefined) break;
    row = prev;
  }
  return row;
}

/** The live tip of `contractId`'s chain; ROW_NOT_FOUND without a row. */
async function tipOf(s: StoreReads, contractId: string): Promise<HandoffRow> {
  const row = await s.getHandoffByContractId(contractId);
  if (row === undefined) throw rowNotFound(contractId);
  const chain = await s.followChain(row);
  return chain[chain.length - 1];
}
