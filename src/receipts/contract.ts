/**
 * Step 2 of `evidence run` and `contract verify`: the contract addressed like the draft verbs
 * and followed along its continuation chain to the live tip. A read: no lock is taken and nothing is written; the tip is checked again under the lock at the append.
 */
import { draftNotFound } from '../drafts/errors.js';
import { draftEntryExists, readDraft } from '../drafts/files.js';
import { resolveInStore, type Addressing, type ImplicitResolution } from '../drafts/resolve.js';
import { isClosedRow, openStoreSession, type HandoffRow } from '../drafts/store-access.js';
import { materializeFromRow } from '../drafts/target.js';
import type { JsonObject } from '../envelope/vocabulary.js';
import type { Env } from '../paths.js';

export interface ResolvedContract {
  /** The id given with --draft-id, or the one addressing resolved. */
  addressedId: string;
  /** The live tip: the receipt's contract_id (the addressed id itself when it has no row). */
  tipId: string;
  tipRow: HandoffRow | undefined;
  /** The tip row is in a closing state: a receipt is still recorded, the draft append is skipped. */
  closed: boolean;
  /** Set when no id was given: the draft was the newest of the current workspace. */
  resolved?: ImplicitResolution;
}

export async function resolveContract(
  env: Env,
  cwd: string,
  addressing: Addressing,
  scope: { workspaceFlag?: string; notice?: (line: string) => void } = {},
): Promise<ResolvedContract> {
  const store = await openStoreSession(env, cwd);
  try {
    const { draftId, implicit } = await resolveInStore(env, cwd, addressing, store, scope.notice, scope.workspaceFlag);
    const resolved = implicit === undefined ? {} : { resolved: implicit };
    const row = await store.row(draftId);
    if (row === undefined) {
      // No row: the contract is its draft; without one there is nothing a receipt could belong to.
      if (!draftEntryExists(env, draftId, cwd)) throw draftNotFound(draftId);
      return { addressedId: draftId, tipId: draftId, tipRow: undefined, closed: false, ...resolved };
    }
    const chain = await store.chainFrom(row);
    const tip = chain[chain.length - 1];
    return { addressedId: draftId, tipId: tip.contract_id, tipRow: tip, closed: isClosedRow(tip), ...resolved };
  } finally {
    await store.close();
  }
}

/**
 * The envelope `contract verify` reads its command from: the tip's draft, or without a draft
 * file the envelope adoption would materialize from the open row (not saved). DRAFT_NOT_FOUND / DRAFT_UNREADABLE
 * (exit 3) otherwise.
 */
export function tipEnvelope(env: Env, cwd: string, contract: ResolvedContract): JsonObject {
  const read = readDraft(env, contract.tipId, cwd);
  if (read.state === 'ok') return read.envelope;
  if (contract.tipRow !== undefined && !contract.closed) return materializeFromRow(contract.tipRow, contract.tipId);
  throw draftNotFound(contract.tipId);
}
