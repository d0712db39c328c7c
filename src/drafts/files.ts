/**
 * Draft files (cli-contract-drafts.md §6.1–§6.3): reading with the three outcomes of §6.2, serialization, and the
 * atomic save (temp file + fsync + rename + folder fsync, mode 0600 in a 0700 folder). Stray temp files are never
 * read by anything here.
 */
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmdirSync,
  writeFileSync,
  type Stats,
} from 'node:fs';
import { dirname, join } from 'node:path';
import type { JsonObject } from '../envelope/vocabulary.js';
import { entryExists, unlinkQuiet } from '../fs-util.js';
import { mintTempTag } from '../ids.js';
import { exceedsDepth, MAX_JSON_DEPTH, tooDeep } from '../json.js';
import { draftFile, draftsDir, type Env } from '../paths.js';
import { draftUnreadable, draftWriteFailed } from './errors.js';

export type DraftRead =
  | { state: 'missing'; path: string }
  | { state: 'ok'; path: string; envelope: JsonObject; text: string };

const errCode = (e: unknown): string | undefined => (e as NodeJS.ErrnoException)?.code;

function lstatQuiet(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

/** A draft as JSON text: 2-space indentation and a trailing newline (§6.1). */
export const serializeDraft = (envelope: JsonObject): string => `${JSON.stringify(envelope, null, 2)}\n`;

/**
 * Reads one draft. Missing (no directory entry at all) → `{state:'missing'}`. Any entry that is there but cannot be
 * read as a regular JSON object — a dangling symlink, a link to a directory, a FIFO, text that is not JSON, a
 * non-object, or containers nested deeper than MAX_JSON_DEPTH — → DRAFT_UNREADABLE (exit 3), so it is never adopted
 * over, overwritten or re-initialised (§6.2). Opened non-blocking so a FIFO planted under the name can never hang the
 * call.
 */
export function readDraft(env: Env, draftId: string, cwd?: string): DraftRead {
  return readDraftAt(draftFile(env, draftId, cwd), draftId, false);
}

function readDraftAt(path: string, draftId: string, retried: boolean): DraftRead {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    if (errCode(e) !== 'ENOENT') throw draftUnreadable(draftId, path, `cannot be read (${errCode(e) ?? (e as Error).message})`);
    // ENOENT from open: nothing there, or a symlink whose target is missing (the entry itself exists: lstat).
    const entry = lstatQuiet(path);
    if (entry === undefined) return { state: 'missing', path };
    if (entry.isSymbolicLink()) throw draftUnreadable(draftId, path, 'is a symbolic link to nothing');
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
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw draftUnreadable(draftId, path, `is not valid JSON (${(e as Error).message})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw draftUnreadable(draftId, path, `is not a JSON object (got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`})`);
  }
  if (exceedsDepth(value)) throw draftUnreadable(draftId, path, `nests deeper than ${MAX_JSON_DEPTH} levels`);
  return { state: 'ok', path, envelope: value as JsonObject, text };
}

/** True when any directory entry (file, directory, dangling symlink, ...) exists under the draft's name. */
export const draftEntryExists = (env: Env, draftId: string, cwd?: string): boolean => entryExists(draftFile(env, draftId, cwd));

/**
 * Creates the drafts folder (0700) when missing. Returns the first directory this call created (for cleanup after a
 * failed call, so a refusal leaves nothing behind), or undefined when everything existed.
 */
export function ensureDraftsDir(env: Env, cwd?: string): string | undefined {
  return mkdirSync(draftsDir(env, cwd), { recursive: true, mode: 0o700 });
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
 * Saves the envelope as `<draft_id>.json` atomically (§6.3). A reader sees the old file or the new one; a process
 * killed at any point leaves the previous draft intact. An envelope nested deeper than MAX_JSON_DEPTH is refused
 * first (VALUE_NOT_REPRESENTABLE, exit 2, nothing touched). Any failure unlinks the temp file and throws
 * DRAFT_WRITE_FAILED (exit 4).
 */
export function saveDraft(env: Env, draftId: string, envelope: JsonObject, cwd?: string): void {
  // Backstop: the write verbs refuse a too-deep envelope before anything is committed; nothing reaches the disk here
  // that readDraft would then refuse (and serializeDraft stays within a bounded depth).
  if (exceedsDepth(envelope)) throw tooDeep(`the envelope of draft ${draftId}`);
  const target = draftFile(env, draftId, cwd);
  const text = serializeDraft(envelope);
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
    throw draftWriteFailed(draftId, target, e);
  }
  fsyncDir(draftsDir(env, cwd));
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
