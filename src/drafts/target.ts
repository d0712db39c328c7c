/**
 * Finding what a write works on, under the locks: the addressed id's
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
import { readRevision } from './revision.js';
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

/** The row and its links in one read where the store can ([row, …, tip]; undefined without a row). */
async function readChain(store: StoreSession, id: string): Promise<HandoffRow[] | undefined> {
  if (store.rowChain !== undefined) return store.rowChain(id);
  const r = await store.row(id);
  return r === undefined ? undefined : store.chainFrom(r);
}

/** What a write read before taking the lock: the draft's finalize count, then its row and chain (in that order). */
export interface ReadAhead {
  closes: number;
  chain: HandoffRow[] | undefined;
}

export async function readAhead(
  env: Env,
  cwd: string | undefined,
  store: StoreSession,
  draftId: string,
): Promise<ReadAhead> {
  const closes = readRevision(env, draftId, cwd).closes;
  return { closes, chain: await readChain(store, draftId) };
}

/**
 * Locks `addressedId`, then follows its chain and locks every later link in order. Re-reads the chain after each
 * round of waiting, so a link opened meanwhile is locked too before the tip is trusted.
 *
 * `ahead`: a read made before the lock, used instead of reading under it (no store round trip while holding the
 * lock) when it found no row or an open row (which has no later link), and no finalize of this draft has counted
 * itself since. Only finalize closes a row or creates one for an existing draft, under this lock; it counts itself
 * after writing, before releasing, so a count unchanged under the lock means the early read still holds. (The gate's
 * capture writes without this lock but never closes a row; a finalize from another host is not serialized by a local
 * lock either way.) Otherwise the row is read under the lock, as without `ahead`.
 */
export async function lockChainToTip(
  locks: LockSet,
  store: StoreSession,
  addressedId: string,
  ahead?: ReadAhead & { env: Env; cwd?: string },
): Promise<ChainTip> {
  await locks.add(addressedId);
  const early =
    ahead !== undefined && (ahead.chain === undefined || (ahead.chain.length === 1 && isOpenRow(ahead.chain[0])));
  const unchanged = early && readRevision(ahead.env, addressedId, ahead.cwd).closes === ahead.closes;
  let first = unchanged ? ahead.chain : await readChain(store, addressedId);
  if (first === undefined) return { addressedId, tipId: addressedId, tipRow: undefined, chain: [] };
  const row = first[0];
  for (;;) {
    const chain = first ?? (await store.chainFrom(row));
    first = undefined;
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
 * What a missing draft is materialized from: the row's stored envelope verbatim when it parses to an object
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
 * Loads `draftId`'s draft (DRAFT_UNREADABLE for a bad file, never adopted over), or materializes it from its
 * open row, or fails with DRAFT_NOT_FOUND (exit 3). Writes nothing.
 */
export function loadOrAdopt(
  env: Env,
  cwd: string | undefined,
  draftId: string,
  row: HandoffRow | undefined,
): LoadedBase {
  const read = readDraft(env, draftId, cwd);
  if (read.state === 'ok') return { envelope: read.envelope, adopted: false };
  if (row !== undefined && isOpenRow(row)) return { envelope: materializeFromRow(row, draftId), adopted: true };
  throw draftNotFound(draftId, row === undefined ? undefined : `its row is ${row.agent_state} and has no draft file`);
}

/**
 * The birth record to save with a draft materialized from its row (adoption) when it has none: the row's workspace
 *, if it is a safe slug (rows from before workspaces were checked as slugs may hold any text: those keep the old rule).
 */
export function adoptionMeta(
  env: Env,
  cwd: string | undefined,
  draftId: string,
  row: HandoffRow,
): DraftMeta | undefined {
  return readDraftMeta(env, draftId, cwd) === undefined ? metaFor(row.workspace) : undefined;
}

/** The base of a continuation link: the initial envelope plus root `continues_contract_id`. */
export function continuationSeed(closedTipId: string): JsonObject {
  const seed = initialEnvelope(agentPrefix(closedTipId));
  defineOwn(seed, 'continues_contract_id', closedTipId);
  return seed;
}
