/**
 * Finding what a write works on, under the locks (cli-contract-drafts.md §8, §9.1 step 4, §9.2): the addressed id's
 * lock, then its continuation chain followed to the live tip with each later link locked in chain order (oldest
 * first, so two writers never deadlock); then the tip's draft loaded, or materialized from its open row (adoption),
 * or a continuation planned when the tip row is closed. Shared by set/add/fill, view (adoption) and finalize.
 */
import { initialEnvelope, type JsonObject } from '../envelope/vocabulary.js';
import { agentPrefix } from '../ids.js';
import type { Env } from '../paths.js';
import { envelopeColumn, readStoredJson } from '../store/stored-json.js';
import { draftNotFound } from './errors.js';
import { readDraft } from './files.js';
import { metaFor, readDraftMeta, type DraftMeta } from './meta.js';
import type { LockSet } from './lock.js';
import { defineOwn, hasOwn } from './mutate.js';
import { isOpenRow, type HandoffRow, type StoreSession } from './store-access.js';

export interface ChainTip {
  /** The id that was given or resolved. */
  addressedId: string;
  /** The live tip's id: the addressed id itself when it has no row or no later link. */
  tipId: string;
  /** The tip's row, when the store has one. */
  tipRow: HandoffRow | undefined;
  /** Rows from the addressed id's row to the tip (empty without a row). */
  chain: HandoffRow[];
}

/**
 * Locks `addressedId`, then follows its chain and locks every later link in order. Re-reads the chain after each
 * round of waiting, so a link opened meanwhile is locked too before the tip is trusted.
 */
export async function lockChainToTip(locks: LockSet, store: StoreSession, addressedId: string): Promise<ChainTip> {
  await locks.add(addressedId);
  const row = await store.row(addressedId);
  if (row === undefined) return { addressedId, tipId: addressedId, tipRow: undefined, chain: [] };
  for (;;) {
    const chain = await store.chainFrom(row);
    const before = chain.length;
    const held = chain.every((link) => locks.has(link.contract_id));
    // Read under every link's lock: no writer can have opened a link after it meanwhile (one round trip fewer).
    if (held) return { addressedId, tipId: chain[before - 1].contract_id, tipRow: chain[before - 1], chain };
    for (const link of chain) await locks.add(link.contract_id);
    const again = await store.chainFrom(row);
    if (again.length === before) {
      const tip = again[again.length - 1];
      return { addressedId, tipId: tip.contract_id, tipRow: tip, chain: again };
    }
  }
}

/**
 * §8: what a missing draft is materialized from: the row's stored envelope verbatim when it parses to an object
 * carrying an `evidence_report` key, else the initial envelope with agent_id = the id's prefix.
 */
export function materializeFromRow(row: HandoffRow, draftId: string): JsonObject {
  const stored = readStoredJson(row.raw_handoff_json, envelopeColumn);
  if (stored !== undefined && hasOwn(stored, 'evidence_report')) return stored;
  return initialEnvelope(agentPrefix(draftId));
}

export interface LoadedBase {
  envelope: JsonObject;
  /** True when the draft file was missing and the envelope came from an open row (not yet saved). */
  adopted: boolean;
}

/**
 * Loads `draftId`'s draft (§6.2: DRAFT_UNREADABLE for a bad file, never adopted over), or materializes it from its
 * open row (§8), or fails with DRAFT_NOT_FOUND (exit 3). Writes nothing.
 */
export function loadOrAdopt(env: Env, cwd: string | undefined, draftId: string, row: HandoffRow | undefined): LoadedBase {
  const read = readDraft(env, draftId, cwd);
  if (read.state === 'ok') return { envelope: read.envelope, adopted: false };
  if (row !== undefined && isOpenRow(row)) return { envelope: materializeFromRow(row, draftId), adopted: true };
  throw draftNotFound(draftId, row === undefined ? undefined : `its row is ${row.agent_state} and has no draft file`);
}

/**
 * The birth record to save with a draft materialized from its row (adoption) when it has none: the row's workspace
 * (amendments-2.md §E2), if it is a safe slug (rows from before §H11 may hold any text: those keep the old rule).
 */
export function adoptionMeta(env: Env, cwd: string | undefined, draftId: string, row: HandoffRow): DraftMeta | undefined {
  return readDraftMeta(env, draftId, cwd) === undefined ? metaFor(row.workspace) : undefined;
}

/** §9.3: the base of a continuation link: the initial envelope plus root `continues_contract_id`. */
export function continuationSeed(closedTipId: string): JsonObject {
  const seed = initialEnvelope(agentPrefix(closedTipId));
  defineOwn(seed, 'continues_contract_id', closedTipId);
  return seed;
}
