/**
 * A draft's revision: `drafts/<id>.rev` beside the draft, two decimal numbers. The first numbers the saves of every
 * write that will copy the draft onto an open row, bumped under the draft's lock. That copy (the mirror) runs after
 * the lock is released, so copies of two saves can reach the store in either order; the row keeps the revision it
 * holds (`mirror_rev`) and takes a copy only over an older one, so a late copy of an older save changes nothing.
 * The second counts the finalizes of the draft (bumped under the lock once finalize wrote, or tried to write, its
 * row): a write that read the row before taking the lock trusts that read only if no finalize came in between.
 *
 * The next revision is one above the higher of the file's value and the row's (read under the same lock). The file is
 * written without fsync: a power cut may roll it back, but that also ends every copy still in flight, so the row's
 * revision is then the highest anywhere and the next save still goes above it. Anything unreadable counts as 0.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isHandoffError } from '../errors.js';
import { unlinkQuiet } from '../fs-util.js';
import { draftsDir, type Env } from '../paths.js';
import { draftWriteFailed } from './errors.js';
import { ensureDraftsDir, tempName } from './files.js';

/** Only call with an id that passed DRAFT_ID_RE (`<id>.rev` is never a draft candidate: it does not end in .json). */
export const revisionFile = (env: Env, draftId: string, cwd?: string): string =>
  join(draftsDir(env, cwd), `${draftId}.rev`);

export interface DraftRevision {
  /** The last save's number. */
  rev: number;
  /** How many finalizes of the draft have written (or tried to write) its row. */
  closes: number;
}

/** The recorded revision, zeros when there is none or it cannot be read as one (never followed through a link). */
export function readRevision(env: Env, draftId: string, cwd?: string): DraftRevision {
  let fd: number;
  try {
    fd = openSync(revisionFile(env, draftId, cwd), constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch {
    return { rev: 0, closes: 0 };
  }
  try {
    const m = fstatSync(fd).isFile() ? /^(\d{1,15}) (\d{1,15})$/.exec(readFileSync(fd, 'utf8').trim()) : null;
    return m === null ? { rev: 0, closes: 0 } : { rev: Number(m[1]), closes: Number(m[2]) };
  } catch {
    return { rev: 0, closes: 0 };
  } finally {
    closeSync(fd);
  }
}

/** Records `r` (temp file + rename, so a process killed meanwhile leaves the old value or the new one). */
function record(env: Env, draftId: string, r: DraftRevision, cwd?: string): void {
  const target = revisionFile(env, draftId, cwd);
  let tmp: string | undefined;
  try {
    ensureDraftsDir(env, cwd);
    tmp = tempName(env, draftId, 'tmp', cwd);
    writeFileSync(tmp, `${r.rev} ${r.closes}\n`, { mode: 0o600, flag: 'wx' });
    renameSync(tmp, target);
    tmp = undefined;
  } catch (e) {
    if (isHandoffError(e)) throw e;
    throw draftWriteFailed(draftId, target, e);
  } finally {
    unlinkQuiet(tmp);
  }
}

/**
 * Numbers the save the caller just made (under the draft's lock): one above the recorded revision and the row's
 * (killed before this, the save is simply never mirrored, and the next write numbers above it). DRAFT_WRITE_FAILED
 * (exit 4) when it cannot be recorded.
 */
export function bumpRevision(env: Env, draftId: string, rowRevision: number, cwd?: string): number {
  const now = readRevision(env, draftId, cwd);
  const rev = Math.max(now.rev, rowRevision) + 1;
  record(env, draftId, { rev, closes: now.closes }, cwd);
  return rev;
}

/** Finalize, under the draft's lock, once it wrote or tried to write the row. Best effort (see writeDraft). */
export function noteClose(env: Env, draftId: string, cwd?: string): void {
  const now = readRevision(env, draftId, cwd);
  try {
    record(env, draftId, { rev: now.rev, closes: now.closes + 1 }, cwd);
  } catch {
    // A write that read the row before its lock then takes a closed row for open: its mirror reports `closed`.
  }
}
