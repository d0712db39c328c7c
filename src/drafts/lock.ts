/**
 * The per-draft lock. `<drafts>/<draft_id>.lock` is created
 * exclusively and holds the owner's pid, host, start time, process start time (`proc_start`, Linux
 * `/proc/<pid>/stat`) and a random token. It is published with link(2) from a fully written temp file, so the lock is
 * never visible half-written: a writer killed at any moment leaves either no lock or a complete one whose dead pid
 * makes it stale at once (an O_EXCL create followed by a write would leave an empty lock that nobody could judge).
 * Waiting: jittered 10–50 ms sleeps, then DRAFT_LOCKED (exit 4) once one holder kept the lock for 15 s of the wait, or
 * after 120 s in all: a lock that keeps changing hands is a queue that moves (a hundred parallel writers on a busy
 * machine), and a writer in it is not turned away while the writers ahead of it land. Stale = dead pid on this host, a
 * live pid whose process start time differs from the recorded one (the pid was reused), older than 120 s, or a lock
 * path of the wrong form (a symlink, dangling or not, a directory, any non-regular file), which is stale at once and
 * removed itself, never followed. Breaking is serialized by a guard file and removes the lock only if it is still the
 * very lock that was judged (same token, or the same entry of the wrong form), so a lock released and re-taken
 * meanwhile is never removed.
 */
import { closeSync, constants, fstatSync, linkSync, lstatSync, openSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { isHandoffError } from '../errors.js';
import { unlinkQuiet } from '../fs-util.js';
import { mintLockToken } from '../ids.js';
import { lockFile, type Env } from '../paths.js';
import { draftLocked, draftWriteFailed } from './errors.js';
import { ensureDraftsDir, removeCreatedDirs, tempName } from './files.js';
import { breakStale, inspect, isStale, ownProcStart, type LockInfo, type LockState } from './lock-judge.js';

export { breakStale, inspect, procStart } from './lock-judge.js';

export const LOCK_WAIT_MS = 15_000;
/** The longest wait in all, while the lock keeps changing hands (a lock older than this is stale anyway). */
export const LOCK_QUEUE_MS = 120_000;

export interface DraftLock {
  readonly draftId: string;
  readonly path: string;
  /** Removes the lock if it is still ours. Idempotent; never throws. */
  release(): void;
}

export interface LockOptions {
  cwd?: string;
  /**
   * Give up once one holder kept the lock this long while we waited (default 15 s), or after LOCK_QUEUE_MS in all
   * (at least this long). 0 = try once (gc).
   */
  waitMs?: number;
}

const errCode = (e: unknown): string | undefined => (e as NodeJS.ErrnoException)?.code;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A lock judged live is judged again (read, holder checked) after this long even if its file has not changed. */
const REJUDGE_MS = 1_000;

/** Acquires the draft's lock, waiting up to `waitMs`. Throws DRAFT_LOCKED (exit 4) when it stays held. */
export async function acquireLock(env: Env, draftId: string, opts: LockOptions = {}): Promise<DraftLock> {
  const waitMs = opts.waitMs ?? LOCK_WAIT_MS;
  const started = Date.now();
  const path = lockFile(env, draftId, opts.cwd);
  let live: { state: LockState; at: number } | undefined;
  let holderPid: number | undefined;
  /** The holder's lock (its token) and when this wait first saw it. */
  let holder: { token: string | undefined; since: number } | undefined;
  for (;;) {
    // A hundred writers waiting on one draft poll it every 10-50 ms each: a retry that finds the very lock file it
    // judged live a moment ago (same inode and mtime) costs one lstat, so the waiters leave the CPU to the holder.
    if (live === undefined || Date.now() - live.at >= REJUDGE_MS || !sameEntry(path, live.state)) {
      const got = attempt(env, draftId, opts.cwd);
      if ('lock' in got) return got.lock;
      holderPid = got.holderPid;
      live = got.judged === undefined ? undefined : { state: got.judged, at: Date.now() };
      const token = got.judged?.info?.token;
      if (holder === undefined || holder.token !== token) holder = { token, since: Date.now() };
    }
    const now = Date.now();
    if (now - (holder?.since ?? started) >= waitMs || now - started >= Math.max(waitMs, LOCK_QUEUE_MS)) {
      throw draftLocked(draftId, holderPid, now - started);
    }
    await sleep(10 + Math.floor(Math.random() * 41));
  }
}

/** True when the entry at `path` is still the regular file `judged` saw (same inode, same mtime). */
function sameEntry(path: string, judged: LockState): boolean {
  try {
    const st = lstatSync(path);
    return st.isFile() && st.ino === judged.ino && st.mtimeMs === judged.mtimeMs;
  } catch {
    return false;
  }
}

/** One non-waiting try: the lock, or undefined when a live holder has it. */
export function tryLock(env: Env, draftId: string, cwd?: string): DraftLock | undefined {
  const got = attempt(env, draftId, cwd);
  return 'lock' in got ? got.lock : undefined;
}

/**
 * `gc`'s non-waiting try over a drafts folder it already checked (`lockPath` = `<drafts>/<id>.lock`), cheaper than
 * `tryLock` for a sweep of 100,000 drafts: the lock is created in place with O_EXCL (no temp
 * file and link) and released by its inode (no read back). gc holds it for a moment only, so a writer that meets it
 * half-written waits (an unparsable lock has 1 s of grace); a gc killed meanwhile leaves a lock with a dead pid, stale
 * at once. When a lock is already there, the full rules decide (tryLock: stale, wrong form, live holder).
 */
export function tryLockQuick(env: Env, draftId: string, lockPath: string, cwd?: string): DraftLock | undefined {
  let fd: number;
  try {
    fd = openSync(lockPath, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  } catch (e) {
    if (errCode(e) === 'EEXIST' || errCode(e) === 'ELOOP') return tryLock(env, draftId, cwd);
    throw draftWriteFailed(draftId, lockPath, e);
  }
  let ino: number;
  try {
    const info: LockInfo = { pid: process.pid, host: hostname(), start: Date.now(), token: mintLockToken() };
    const started = ownProcStart();
    if (started !== undefined) info.proc_start = started;
    writeFileSync(fd, `${JSON.stringify(info)}\n`);
    ino = fstatSync(fd).ino;
  } catch (e) {
    unlinkQuiet(lockPath);
    throw draftWriteFailed(draftId, lockPath, e);
  } finally {
    closeSync(fd);
  }
  let released = false;
  return {
    draftId,
    path: lockPath,
    release() {
      if (released) return;
      released = true;
      try {
        if (lstatSync(lockPath).ino === ino) unlinkSync(lockPath);
      } catch {
        // already gone
      }
    },
  };
}

/** Creates the lock, or breaks one stale lock and creates it; reports the live holder (and the lock judged live) otherwise. */
function attempt(
  env: Env,
  draftId: string,
  cwd?: string,
): { lock: DraftLock } | { holderPid: number | undefined; judged?: LockState } {
  const path = lockFile(env, draftId, cwd);
  for (let i = 0; i < 3; i++) {
    // A live holder is seen by reading its lock, before any file is written: waiters of a busy draft (a hundred
    // parallel writers) then cost the holder's folder no temp files, links and removals.
    const held = i === 0 ? inspect(path) : undefined;
    if (held !== undefined && !isStale(held)) return { holderPid: held.info?.pid, judged: held };
    const info: LockInfo = { pid: process.pid, host: hostname(), start: Date.now(), token: mintLockToken() };
    const started = ownProcStart();
    if (started !== undefined) info.proc_start = started;
    if (create(env, draftId, path, info, cwd)) return { lock: handle(draftId, path, info.token) };
    const current = inspect(path);
    if (current === undefined) continue; // released meanwhile: try again at once
    if (!isStale(current)) return { holderPid: current.info?.pid, judged: current };
    breakStale(path, current);
  }
  return { holderPid: inspect(path)?.info?.pid };
}

/** Publishes a complete lock file with link(2); false when one exists (EEXIST). */
function create(env: Env, draftId: string, path: string, info: LockInfo, cwd?: string): boolean {
  let tmp: string | undefined;
  try {
    tmp = tempName(env, draftId, 'lock.tmp', cwd);
    try {
      writeFileSync(tmp, `${JSON.stringify(info)}\n`, { mode: 0o600, flag: 'wx' });
    } catch (e) {
      if (errCode(e) !== 'ENOENT') throw e;
      // The folder is missing (first write, or a failed call removed the empty folder it had created): make it.
      ensureDraftsDir(env, cwd);
      writeFileSync(tmp, `${JSON.stringify(info)}\n`, { mode: 0o600, flag: 'wx' });
    }
    try {
      linkSync(tmp, path);
      return true;
    } catch (e) {
      if (errCode(e) === 'EEXIST') return false;
      if (errCode(e) === 'ENOENT') return false; // the folder vanished under us: the caller retries
      return createExclusive(path, info); // filesystems without hard links
    }
  } catch (e) {
    if (isHandoffError(e)) throw e;
    throw draftWriteFailed(draftId, path, e);
  } finally {
    unlinkQuiet(tmp);
  }
}

function createExclusive(path: string, info: LockInfo): boolean {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  } catch (e) {
    if (errCode(e) === 'EEXIST') return false;
    throw e;
  }
  try {
    writeFileSync(fd, `${JSON.stringify(info)}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

function handle(draftId: string, path: string, token: string): DraftLock {
  let released = false;
  return {
    draftId,
    path,
    release() {
      if (released) return;
      released = true;
      const now = inspect(path);
      if (now?.form === 'file' && now.info?.token === token) unlinkQuiet(path);
    },
  };
}

/**
 * Several locks taken in order (a continuation chain, oldest first) and released together. Also remembers the
 * directories the first lock had to create, so a call that ends in a refusal can remove them (nothing written).
 */
export class LockSet {
  private readonly held: DraftLock[] = [];
  private createdDir: string | undefined;
  private tracked = false;

  constructor(
    private readonly env: Env,
    private readonly cwd?: string,
  ) {}

  has(draftId: string): boolean {
    return this.held.some((l) => l.draftId === draftId);
  }

  get ids(): string[] {
    return this.held.map((l) => l.draftId);
  }

  /** Takes `draftId`'s lock (no-op when already held). */
  async add(draftId: string, waitMs?: number): Promise<void> {
    if (this.has(draftId)) return;
    if (!this.tracked) {
      this.tracked = true;
      try {
        this.createdDir = ensureDraftsDir(this.env, this.cwd);
      } catch (e) {
        if (isHandoffError(e)) throw e;
        throw draftWriteFailed(draftId, lockFile(this.env, draftId, this.cwd), e);
      }
    }
    this.held.push(await acquireLock(this.env, draftId, { cwd: this.cwd, waitMs }));
  }

  /** Releases every lock, newest first. With `failed`, also removes the folders this call created if still empty. */
  releaseAll(failed = false): void {
    while (this.held.length > 0) this.held.pop()?.release();
    if (failed) removeCreatedDirs(this.env, this.createdDir, this.cwd);
  }
}
