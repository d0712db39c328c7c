/**
 * Draft services: everything that reads, locks, resolves, changes and saves draft files.
 * Import the module you need directly (start-up budget: each module costs load time); this index lists the API.
 * Nothing here loads SQLite unless the DB file exists (store-access.ts is the one seam to src/store/).
 *
 * files.ts
 *   readDraft(env, id, cwd?)              {state:'missing'} | {state:'ok', envelope, text}; DRAFT_UNREADABLE (exit 3)
 *                                         for any other entry (dangling link, directory, not JSON, not an object,
 *                                         nested deeper than MAX_JSON_DEPTH)
 *   saveDraft(env, id, envelope, cwd?)    atomic save: temp `.<id>.<pid>.<8hex>.tmp` + fsync + rename + dir fsync,
 *                                         mode 0600 in a 0700 folder; DRAFT_WRITE_FAILED (exit 4), temp removed;
 *                                         a too-deep envelope is refused first (VALUE_NOT_REPRESENTABLE)
 *   serializeDraft(envelope)              the file text: 2-space JSON + newline
 *   draftEntryExists(env, id, cwd?)       any entry (even unreadable) under the draft's name
 *   ensureDraftsDir / removeCreatedDirs   create the folder (0700) / remove what a failed call created
 *   tempName(env, id, suffix, cwd?)       a unique ignored temp name in the drafts folder
 * lock.ts
 *   acquireLock(env, id, {waitMs?})       the per-draft lock: link(2)-published file with pid/host/start/token/
 *                                         proc_start; jittered 10–50 ms retries up to 15 s → DRAFT_LOCKED (exit 4);
 *                                         stale (dead pid, reused pid, > 120 s, wrong form) broken race-safely; an
 *                                         unchanged live lock is re-judged once a second (one lstat per retry)
 *   tryLock(env, id)                      one non-waiting try: the lock or undefined
 *   tryLockQuick(env, id, path)           gc's cheaper non-waiting try (O_EXCL in place, released by inode)
 * lock-judge.ts
 *   inspect / isStale / breakStale        what sits at the lock path, whether it is stale, the guarded break
 *   procStart(pid)                        a process's start time (/proc/<pid>/stat field 22)
 *   LockSet                               locks taken in order (chains: oldest first), releaseAll(failed) on every
 *                                         path; a failed call also removes the folders it created
 * resolve.ts
 *   resolveDraftId(env, cwd, {draftId?, agentId?}, spentProbe, scope?)   addressing → {draftId, via, implicit?};
 *                                         DRAFT_NOT_FOUND, AMBIGUOUS_DRAFT / AMBIGUOUS_AGENT_DRAFT (exit 2, data.candidates);
 *                                         without an id only the current workspace's drafts (scope: --workspace, the
 *                                         row lookup, the [RESOLVED] notice; resolve-workspace.ts scopeOver(session))
 *   listCandidates(env, cwd?, agentId?)   draft files newest first (ms mtime, ties by id descending)
 *   candidateLines(candidates)            the human listing under an ambiguity message
 * target.ts
 *   readAhead(env, cwd, store, id)        before the lock: the finalize count, then the row and its chain
 *   lockChainToTip(locks, store, id, ahead?)   lock the id, follow its continuation chain, lock each later link in
 *                                         order; the early read stands in for the read under the lock when still valid
 *   loadOrAdopt(env, cwd, id, row)        the draft, or materialized from its open row, or DRAFT_NOT_FOUND
 *   materializeFromRow(row, id)           the row's envelope (object with evidence_report) or the initial envelope
 *   continuationSeed(closedTipId)         the initial envelope + root continues_contract_id
 * store-access.ts
 *   openStoreSession(env, cwd?)           the store for one call, either backend (no-op session without a SQLite
 *                                         file; probe opened lazily), all async: exists, row, chainFrom, chainIds,
 *                                         planTaskBinding, spent, verdict, insertContinuation, mirror, close
 *   sessionOver(reads, writer, close)     the same session over a store the caller holds (finalize)
 *   isOpenRow(row) / isClosedRow(row)     DISPATCHED|IN_PROGRESS / a closed-turn state
 * sanitize.ts
 *   sanitizeEnvelope(envelope)            the repairs on a copy → {envelope, repairs}; sanitizedNotice(repair)
 * value.ts
 *   parseValueArg(arg)                    VALUE parsing (VALUE_NOT_REPRESENTABLE: ±Infinity, too deep)
 *   parseFieldPath(field)                 FIELD segments (INVALID_FIELD_PATH: empty segment, > MAX_JSON_DEPTH)
 * mutate.ts
 *   setField / addToList(envelope, segments, value, draftId)   set/add on a copy (PATH_NOT_OBJECT, NOT_A_LIST)
 *   readField(envelope, segments)         view --field walk (FIELD_NOT_FOUND)
 *   getOwn / hasOwn / defineOwn / deleteOwn / cloneJson / isPlainObject   own-property helpers (`__proto__` safe)
 * fill.ts
 *   applyFill(base, patch, draftId)       merge + list rule (FILL_LIST_COLLISION with data.collisions)
 *   mergePatch / findListCollisions       the two halves, pure
 * write.ts
 *   writeDraft({env, cwd, addressing, apply, notice})   the whole write pipeline of set/add/fill →
 *                                         {kind:'ok', draftId, mirror, adopted, continuation?, canonicalized, sanitized}
 *                                         | {kind:'rejected', draftId, verdict, sanitized}
 *                                         (+ {kind:'closed_tip', draftId, tipId} under onClosedTip: 'skip')
 * revision.ts
 *   readRevision / bumpRevision / noteClose   `<id>.rev`: the last save's number (the mirror's order) and the
 *                                         finalize count (whether a row read before the lock still holds)
 * meta.ts
 *   readDraftMeta(env, id, cwd?)          the draft's birth record `<id>.meta.json` ({workspace}) or undefined;
 *                                         DRAFT_UNREADABLE for anything else there
 *   recordedWorkspace / draftWorkspace    the workspace a verb on the draft uses (WORKSPACE_MISMATCH, exit 2)
 * foresight.ts
 *   foreseeRefusals(envelope, id, bindings)  what finalize will refuse that a write can already see
 * view.ts / validate.ts / init.ts         the services of `view`, `validate` (draft and file modes) and `init`
 * cli-flags.ts                            the shared id flags and addressingFrom(flags) (the id checks)
 * errors.ts                               constructors of the draft codes (draftNotFound, draftLocked, ...)
 */
export { readDraft, saveDraft, serializeDraft, draftEntryExists, ensureDraftsDir, removeCreatedDirs, removeDraftFiles, tempName } from './files.js';
export type { DraftRead } from './files.js';
export { acquireLock, tryLock, tryLockQuick, procStart, LockSet, LOCK_WAIT_MS, LOCK_STALE_MS } from './lock.js';
export type { DraftLock } from './lock.js';
export { resolveDraftId, listCandidates, candidateLines } from './resolve.js';
export type { Addressing, Candidate, CandidateView, Resolution, SpentProbe } from './resolve.js';
export { lockChainToTip, loadOrAdopt, materializeFromRow, continuationSeed } from './target.js';
export type { ChainTip, LoadedBase } from './target.js';
export { openStoreSession, isOpenRow, isClosedRow, CLOSED_STATES } from './store-access.js';
export type { StoreSession, MirrorOutcome, HandoffRow } from './store-access.js';
export { sanitizeEnvelope, sanitizedNotice } from './sanitize.js';
export type { Repair } from './sanitize.js';
export { parseValueArg, parseFieldPath } from './value.js';
export { setField, addToList, readField, getOwn, hasOwn, defineOwn, deleteOwn, cloneJson, isPlainObject } from './mutate.js';
export { applyFill, mergePatch, findListCollisions, listCollisionError } from './fill.js';
export type { ListCollision } from './fill.js';
export { writeDraft } from './write.js';
export type { WriteRequest, WriteOutcome, ClosedTipOutcome, ContinuationInfo } from './write.js';
export { viewDraft } from './view.js';
export type { ViewResult } from './view.js';
export { validateDraft, validateText } from './validate.js';
export { initDraft } from './init.js';
export { draftWorkspace, readDraftMeta, recordedWorkspace } from './meta.js';
export type { DraftMeta } from './meta.js';
export { foreseeRefusals } from './foresight.js';
export type { FinalizeWarning } from './foresight.js';
export type { InitResult } from './init.js';
