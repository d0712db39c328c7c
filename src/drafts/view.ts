/**
 * `view`: shows exactly the resolved id (never follows the chain, never sanitizes or
 * validates). A missing draft with an open row is materialized and saved under the lock (adoption); a closed
 * row, or an open row on a read-only data root, is shown read-only from the store. With `--field`, the field is resolved before any adoption is saved, so a
 * FIELD_NOT_FOUND leaves nothing written.
 */
import type { JsonObject } from '../envelope/vocabulary.js';
import { dataRootWritable, type Env } from '../paths.js';
import { envelopeColumn, readStoredJson } from '../store/stored-json.js';
import { closedElsewhereNotice } from './closed-elsewhere.js';
import { draftNotFound, rowEnvelopeUnreadable } from './errors.js';
import { readDraftMeta } from './meta.js';
import { readDraft, saveDraft } from './files.js';
import { LockSet } from './lock.js';
import { readField } from './mutate.js';
import { resolveInStore, type Addressing, type ImplicitResolution } from './resolve.js';
import { isOpenRow, openStoreSession, type HandoffRow, type StoreSession } from './store-access.js';
import { adoptionMeta, materializeFromRow } from './target.js';

export interface ViewResult {
  draftId: string;
  envelopeSource: 'draft' | 'row';
  adopted: boolean;
  /** Only for `envelope_source: "row"`. */
  row?: { handoff_id: number; agent_state: string; cut_reason: string | null };
  envelope: JsonObject;
  /** The value at `field` (when one was asked for); present even when it is null. */
  field?: { value: unknown };
  /** Set when no id was given: the draft was the newest of the current workspace. */
  resolved?: ImplicitResolution;
}

/** `field`: the parsed `--field` segments; a missing path throws FIELD_NOT_FOUND (exit 3) before anything is saved. */
export async function viewDraft(
  env: Env,
  cwd: string | undefined,
  addr: Addressing,
  field?: string[],
  notice?: (line: string) => void,
): Promise<ViewResult> {
  const pick = (envelope: JsonObject): Pick<ViewResult, 'field'> =>
    field === undefined ? {} : { field: { value: readField(envelope, field) } };
  const store = await openStoreSession(env, cwd);
  try {
    const { draftId, implicit } = await resolveInStore(env, cwd, addr, store, notice);
    const resolved = implicit === undefined ? {} : { resolved: implicit };
    const read = readDraft(env, draftId, cwd);
    if (read.state === 'ok') {
      if (notice !== undefined) await noticeIfClosedElsewhere(env, cwd, draftId, store, notice);
      return {
        draftId,
        envelopeSource: 'draft',
        adopted: false,
        envelope: read.envelope,
        ...pick(read.envelope),
        ...resolved,
      };
    }
    const row = await store.row(draftId);
    if (row === undefined) throw draftNotFound(draftId);
    // A read-only data root cannot hold an adopted draft: the open row is shown as stored.
    if (isOpenRow(row) && dataRootWritable(env, cwd))
      return { ...(await adopt(env, cwd, draftId, store, pick)), ...resolved };
    return { ...rowView(draftId, row, pick), ...resolved };
  } finally {
    await store.close();
  }
}

/** The row's stored envelope, read-only (`envelope_source: "row"`); ROW_ENVELOPE_UNREADABLE when not an object. */
function rowView(
  draftId: string,
  row: HandoffRow,
  pick: (envelope: JsonObject) => Pick<ViewResult, 'field'>,
): ViewResult {
  const stored = readStoredJson(row.raw_handoff_json, envelopeColumn);
  if (stored === undefined) throw rowEnvelopeUnreadable(draftId, row.id);
  return {
    draftId,
    envelopeSource: 'row',
    adopted: false,
    row: { handoff_id: row.id, agent_state: row.agent_state, cut_reason: row.cut_reason ?? null },
    envelope: stored,
    ...pick(stored),
  };
}

/**
 * Materializes the draft under its lock; re-checks file and row there, since another writer may have won. The field
 * (if any) is read from the materialized envelope before it is saved: a failed lookup saves nothing.
 */
async function adopt(
  env: Env,
  cwd: string | undefined,
  draftId: string,
  store: StoreSession,
  pick: (envelope: JsonObject) => Pick<ViewResult, 'field'>,
): Promise<ViewResult> {
  const locks = new LockSet(env, cwd);
  let saved = false;
  try {
    await locks.add(draftId);
    const read = readDraft(env, draftId, cwd);
    if (read.state === 'ok') {
      const shown = pick(read.envelope);
      saved = true;
      return { draftId, envelopeSource: 'draft', adopted: false, envelope: read.envelope, ...shown };
    }
    const row = await store.row(draftId);
    if (row === undefined || !isOpenRow(row))
      throw draftNotFound(draftId, row === undefined ? undefined : `its row closed meanwhile`);
    const envelope = materializeFromRow(row, draftId);
    const shown = pick(envelope);
    saveDraft(env, draftId, envelope, cwd, adoptionMeta(env, cwd, draftId, row));
    saved = true;
    return { draftId, envelopeSource: 'draft', adopted: true, envelope, ...shown };
  } finally {
    locks.releaseAll(!saved);
  }
}

/**
 * A draft that carries a dispatched contract (its birth record says so; a draft born by `init` is never read here):
 * its row, one indexed read, and when another host closed it, [ROW CLOSED ELSEWHERE] with the live tip.
 */
async function noticeIfClosedElsewhere(
  env: Env,
  cwd: string | undefined,
  draftId: string,
  store: StoreSession,
  notice: (line: string) => void,
): Promise<void> {
  let dispatched: boolean;
  try {
    dispatched = readDraftMeta(env, draftId, cwd)?.dispatched === true;
  } catch {
    return; // an unreadable birth record is reported by the verbs that need it
  }
  if (!dispatched) return;
  const row = await store.row(draftId);
  if (row === undefined || isOpenRow(row)) return;
  const chain = await store.chainFrom(row);
  const line = closedElsewhereNotice(
    env,
    cwd,
    draftId,
    row.agent_state,
    chain[chain.length - 1]?.contract_id ?? draftId,
  );
  if (line !== undefined) notice(line);
}
