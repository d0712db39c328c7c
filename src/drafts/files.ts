/**
 * Draft files: reading with its three outcomes (missing, ok, unreadable), serialization, and the
 * atomic save (temp file + fsync + rename + folder fsync, mode 0600 in a 0700 folder). Stray temp files are never
 * read by anything here.
 */
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  openSync,
  readFileSync,
  renameSync,
  rmdirSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import type { JsonObject } from '../envelope/vocabulary.js';
import { isHandoffError } from '../errors.js';
import { entryExists, lstatQuiet, unlinkQuiet } from '../fs-util.js';
import { mintTempTag } from '../ids.js';
import { exceedsDepth, MAX_JSON_DEPTH, tooDeep, tryParseJson } from '../json.js';
import { draftFile, draftsDir, ensureRootFolder, type Env } from '../paths.js';
import { draftUnreadable, draftWriteFailed } from './errors.js';
import { metaFile, serializeMeta, type DraftMeta } from './meta.js';

export type DraftRead =
  { state: 'missing'; path: string } | { state: 'ok'; path: string; envelope: JsonObject; text: string };

const errCode = (e: unknown): string | undefined => (e as NodeJS.ErrnoException)?.code;

/** A draft as JSON text: 2-space indentation and a trailing newline. */
export const serializeDraft = (envelope: JsonObject): string => `${JSON.stringify(envelope, null, 2)}\n`;

/**
 * Reads one draft. Missing (no directory entry at all) → `{state:'missing'}`. Any entry that is there but cannot be
 * read as a regular JSON object — any symlink (never followed), a directory, a FIFO, text that is not JSON, a
 * non-object, or containers nested deeper than MAX_JSON_DEPTH — → DRAFT_UNREADABLE (exit 3), so it is never adopted
 * over, overwritten or re-initialised. Opened non-blocking so a FIFO planted under the name can never hang the
 * call.
 */
export function readDraft(env: Env, draftId: string, cwd?: string): DraftRead {
  return readDraftAt(draftFile(env, draftId, cwd), draftId, false);
}

function readDraftAt(path: string, draftId: string, retried: boolean): DraftRead {
  let fd: number;
  try {
    // O_NOFOLLOW: a draft file that is a symlink is refused, never followed.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (e) {
    if (errCode(e) === 'ELOOP')
      throw draftUnreadable(draftId, path, 'is a symbolic link (draft files are never followed through links)');
    if (errCode(e) !== 'ENOENT')
      throw draftUnreadable(draftId, path, `cannot be read (${errCode(e) ?? (e as Error).message})`);
    // ENOENT from open: nothing there (the entry itself may exist: lstat).
    const entry = lstatQuiet(path);
    if (entry === undefined) return { state: 'missing', path };
    if (entry.isSymbolicLink())
      throw draftUnreadable(draftId, path, 'is a symbolic link (draft files are never followed through links)');
    // The file appeared between the open and the lstat (a writer saved it meanwhile): read it once more.
    if (!retried) return readDraftAt(path, draftId, true);
    throw draftUnreadable(draftId, path, `cannot be read (${errCode(e) ?? (e as Error).message})`);
  }
  let text: string;
  try {
    if (!fstatSync(fd).isFile()) throw draftUnreadable(draftId, path, 'is not a regular file');
    text = readFileSync(fd, 'utf8');
  } catch (e) {
    if ((e as { code?: string }).code === 'DRAFT_UNREADABLE') throw e;
    throw draftUnreadable(draftId, path, `cannot be read (${errCode(e) ?? (e as Error).message})`);
  } finally {
    closeSync(fd);
  }
  const parsed = tryParseJson(text);
  if (!parsed.ok) throw draftUnreadable(draftId, path, `is not valid JSON (${parsed.message})`);
  const value = parsed.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw draftUnreadable(
      draftId,
      path,
      `is not a JSON object (got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`})`,
    );
  }
  if (exceedsDepth(value)) throw draftUnreadable(draftId, path, `nests deeper than ${MAX_JSON_DEPTH} levels`);
  return { state: 'ok', path, envelope: value as JsonObject, text };
}

/** True when any directory entry (file, directory, dangling symlink, ...) exists under the draft's name. */
export const draftEntryExists = (env: Env, draftId: string, cwd?: string): boolean =>
  entryExists(draftFile(env, draftId, cwd));

/**
 * Creates the drafts folder (0700) when missing, one level at a time (DATA_ROOT_UNUSABLE when the data root cannot be
 * created, DATA_ROOT_UNSAFE when drafts/ is not a real folder). Returns the first directory this call created (for
 * cleanup after a failed call, so a refusal leaves nothing behind), or undefined when everything existed.
 */
export function ensureDraftsDir(env: Env, cwd?: string): string | undefined {
  return ensureRootFolder(env, 'drafts', cwd);
}

/** Removes the directories `ensureDraftsDir` created, deepest first, only while they are empty (best effort). */
export function removeCreatedDirs(env: Env, firstCreated: string | undefined, cwd?: string): void {
  if (firstCreated === undefined) return;
  let dir = draftsDir(env, cwd);
  if (!dir.startsWith(firstCreated)) return;
  for (;;) {
    try {
      rmdirSync(dir);
    } catch {
      return;
    }
    if (dir === firstCreated || dirname(dir) === dir) return;
    dir = dirname(dir);
  }
}

/** A unique temp name in the drafts folder: `.<draft_id>.<pid>.<8 hex>.<suffix>` (ignored by every verb). */
export const tempName = (env: Env, draftId: string, suffix: string, cwd?: string): string =>
  join(draftsDir(env, cwd), `.${draftId}.${process.pid}.${mintTempTag()}.${suffix}`);

/**
 * Saves the envelope as `<draft_id>.json` atomically. A reader sees the old file or the new one; a process
 * killed at any point leaves the previous draft intact. An envelope nested deeper than MAX_JSON_DEPTH is refused
 * first (VALUE_NOT_REPRESENTABLE, exit 2, nothing touched). Any failure unlinks the temp file and throws
 * DRAFT_WRITE_FAILED (exit 4).
 *
 * `meta`: the draft's birth record, saved first, the same way, beside it; if the draft then
 * cannot be saved the sidecar is removed again, so a draft and its sidecar appear together.
 */
export function saveDraft(env: Env, draftId: string, envelope: JsonObject, cwd?: string, meta?: DraftMeta): void {
  // Backstop: the write verbs refuse a too-deep envelope before anything is committed; nothing reaches the disk here
  // that readDraft would then refuse (and serializeDraft stays within a bounded depth).
  if (exceedsDepth(envelope)) throw tooDeep(`the envelope of draft ${draftId}`);
  if (meta !== undefined) writeAtomically(env, draftId, metaFile(env, draftId, cwd), serializeMeta(meta), cwd);
  try {
    writeAtomically(env, draftId, draftFile(env, draftId, cwd), serializeDraft(envelope), cwd);
  } catch (e) {
    if (meta !== undefined) unlinkQuiet(metaFile(env, draftId, cwd));
    throw e;
  }
}

/** Temp file in the drafts folder, fsync, rename onto `target`, folder fsync; DRAFT_WRITE_FAILED (exit 4). */
function writeAtomically(env: Env, draftId: string, target: string, text: string, cwd?: string): void {
  let tmp: string | undefined;
  try {
    ensureDraftsDir(env, cwd);
    tmp = tempName(env, draftId, 'tmp', cwd);
    const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    try {
      writeFileSync(fd, text, 'utf8');
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, target);
    tmp = undefined;
  } catch (e) {
    unlinkQuiet(tmp);
    if (isHandoffError(e)) throw e;
    throw draftWriteFailed(draftId, target, e);
  }
  fsyncDir(draftsDir(env, cwd));
}

/** Removes a draft file and its sidecar (dispatch cleanup, gc); an entry already gone is not an error. */
export function removeDraftFiles(env: Env, draftId: string, cwd?: string): void {
  unlinkQuiet(draftFile(env, draftId, cwd));
  unlinkQuiet(metaFile(env, draftId, cwd));
}

/** fsync of the folder so the rename itself is durable (best effort: some filesystems refuse it). */
function fsyncDir(dir: string): void {
  try {
    const fd = openSync(dir, constants.O_RDONLY);
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // best effort
  }
}
