/**
 * A draft's revision: `drafts/<id>.rev`, a decimal number beside the draft, bumped under the draft's lock by every
 * write that will copy the draft onto an open row. That copy (the mirror) runs after the lock is released, so copies
 * of two saves can reach the store in either order; the row keeps the revision it holds (`mirror_rev`) and takes a
 * copy only over an older one, so a late copy of an older save changes nothing.
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
export const revisionFile = (env: Env, draftId: string, cwd?: string): string => join(draftsDir(env, cwd), `${draftId}.rev`);

/** The recorded revision, 0 when there is none or it cannot be read as one (never followed through a link). */
export function readRevision(env: Env, draftId: string, cwd?: string): number {
  let fd: number;
  try {
    fd = openSync(revisionFile(env, draftId, cwd), constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch {
    return 0;
  }
  try {
    if (!fstatSync(fd).isFile()) return 0;
    const text = readFileSync(fd, 'utf8').trim();
    return /^\d{1,15}$/.test(text) ? Number(text) : 0;
  } catch {
    return 0;
  } finally {
    closeSync(fd);
  }
}

/**
 * Numbers the save the caller just made (under the draft's lock): one above the recorded revision and the row's,
 * recorded at once (temp file + rename, so a process killed meanwhile leaves the old value or the new one; killed
 * before it, the save is simply never mirrored, and the next write numbers above it). DRAFT_WRITE_FAILED (exit 4)
 * when it cannot be recorded.
 */
export function bumpRevision(env: Env, draftId: string, rowRevision: number, cwd?: string): number {
  const rev = Math.max(readRevision(env, draftId, cwd), rowRevision) + 1;
  const target = revisionFile(env, draftId, cwd);
  let tmp: string | undefined;
  try {
    ensureDraftsDir(env, cwd);
    tmp = tempName(env, draftId, 'tmp', cwd);
    writeFileSync(tmp, `${rev}\n`, { mode: 0o600, flag: 'wx' });
    renameSync(tmp, target);
    tmp = undefined;
  } catch (e) {
    if (isHandoffError(e)) throw e;
    throw draftWriteFailed(draftId, target, e);
  } finally {
    unlinkQuiet(tmp);
  }
  return rev;
}
