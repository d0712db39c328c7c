/**
 * The per-draft lock (cli-contract-drafts.md §6.4). `<drafts>/<draft_id>.lock` is created exclusively and holds the
 * owner's pid, host, start time and a random token. It is published with link(2) from a fully written temp file, so
 * the lock is never visible half-written: a writer killed at any moment leaves either no lock or a complete one
 * whose dead pid makes it stale at once (an O_EXCL create followed by a write would leave an empty lock that
 * nobody could judge). Waiting: jittered 10–50 ms sleeps for up to 15 s, then DRAFT_LOCKED (exit 4). Stale = dead
 * pid on this host or older than 120 s. Breaking is serialized by a guard file and removes the lock only if it is
 * still the very lock that was judged (same token), so a lock released and re-taken meanwhile is never removed.
 */
import { closeSync, constants, fstatSync, linkSync, openSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { readQuietly, unlinkQuiet } from '../fs-util.js';
import { mintLockToken } from '../ids.js';
import { lockFile, type Env } from '../paths.js';
import { draftLocked, draftWriteFailed } from './errors.js';
import { ensureDraftsDir, removeCreatedDirs, tempName } from './files.js';

export const LOCK_WAIT_MS = 15_000;
export const LOCK_STALE_MS = 120_000;

interface LockInfo {
  pid: number;
  host: string;
  start: number;
  token: string;
}

export interface DraftLock {
  readonly draftId: string;
  readonly path: string;
  /** Removes the lock if it is still ours. Idempotent; never throws. */
  release(): void;
}

export interface LockOptions {
  cwd?: string;
  /** Give up after this long (default 15 s). 0 = try once (gc). */
  waitMs?: number;
}

const errCode = (e: unknown): string | undefined => (e as NodeJS.ErrnoException)?.code;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Acquires the draft's lock, waiting up to `waitMs`. Throws DRAFT_LOCKED (exit 4) when it stays held. */
export async function acquireLock(env: Env, draftId: string, opts: LockOptions = {}): Promise<DraftLock> {
  const waitMs = opts.waitMs ?? LOCK_WAIT_MS;
  const started = Date.now();
  for (;;) {
    const got = attempt(env, draftId, opts.cwd);
    if ('lock' in got) return got.lock;
    if (Date.now() - started >= waitMs) throw draftLocked(draftId, got.holderPid, Date.now() - started);
    await sleep(10 + Math.floor(Math.random() * 41));
  }
}

/** One non-waiting try (for `gc`): the lock, or undefined when a live holder has it. */
export function tryLock(env: Env, draftId: string, cwd?: string): DraftLock | undefined {
  const got = attempt(env, draftId, cwd);
  return 'lock' in got ? got.lock : undefined;
}

/** Creates the lock, or breaks one stale lock and creates it; reports the live holder otherwise. */
function attempt(env: Env, draftId: string, cwd?: string): { lock: DraftLock } | { holderPid: number | undefined } {
  const path = lockFile(env, draftId, cwd);
  for (let i = 0; i < 3; i++) {
    const info: LockInfo = { pid: process.pid, host: hostname(), start: Date.now(), token: mintLockToken() };
    if (create(env, draftId, path, info, cwd)) return { lock: handle(draftId, path, info.token) };
    const current = inspect(path);
    if (current === undefined) continue; // released meanwhile: try again at once
    if (!isStale(current)) return { holderPid: current.info?.pid };
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

export interface LockState {
  info: LockInfo | undefined;
  ino: number;
  mtimeMs: number;
}

/** Reads the lock file and its inode from one descriptor; undefined when there is no lock. */
export function inspect(path: string): LockState | undefined {
  return readQuietly(path, (fd) => {
    const st = fstatSync(fd);
    return { info: parseInfo(readFileSync(fd, 'utf8')), ino: st.ino, mtimeMs: st.mtimeMs };
  });
}

function parseInfo(text: string): LockInfo | undefined {
  try {
    const v = JSON.parse(text) as Partial<LockInfo>;
    if (typeof v.pid === 'number' && typeof v.start === 'number' && typeof v.token === 'string') {
      return { pid: v.pid, host: typeof v.host === 'string' ? v.host : '', start: v.start, token: v.token };
    }
  } catch {
    // not ours: judged by its age below
  }
  return undefined;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return errCode(e) === 'EPERM';
  }
}

/** Dead pid on this host, or older than 120 s. A lock we cannot parse gets 1 s of grace (a non-link writer). */
function isStale(s: LockState): boolean {
  const now = Date.now();
  if (s.info === undefined) return now - s.mtimeMs > 1_000;
  if (now - s.info.start > LOCK_STALE_MS) return true;
  return s.info.host === hostname() && s.info.pid !== process.pid && !pidAlive(s.info.pid);
}

/** A breaker killed while holding the guard leaves it behind; after this long it no longer serializes anything. */
const GUARD_STALE_MS = 2_000;

/**
 * Race-safe break of the lock judged stale (`judged`). Between the judgement and the break its owner may have
 * released it (a dying owner still runs its release) and another writer taken the lock anew, possibly on the same
 * inode, so neither the path nor the inode identifies what was judged: only its token does. Under a guard file that
 * serializes breakers, the lock is re-read and removed only when it is still the judged one. Nobody else removes a
 * stale lock and nobody can create one while it exists, so the re-read and the unlink cannot be separated by a
 * change that matters.
 */
export function breakStale(path: string, judged: LockState): void {
  const guard = `${path}.break`;
  if (!takeGuard(guard)) return;
  try {
    const now = inspect(path);
    if (now === undefined) return;
    const same =
      judged.info !== undefined ? now.info?.token === judged.info.token : now.info === undefined && now.ino === judged.ino && now.mtimeMs === judged.mtimeMs;
    if (same) unlinkQuiet(path);
  } finally {
    unlinkQuiet(guard);
  }
}

function takeGuard(guard: string): boolean {
  try {
    writeFileSync(guard, `${process.pid}\n`, { mode: 0o600, flag: 'wx' });
    return true;
  } catch {
    try {
      if (Date.now() - statSync(guard).mtimeMs > GUARD_STALE_MS) unlinkQuiet(guard);
    } catch {
      // gone meanwhile
    }
    return false; // the caller tries again after its sleep
  }
}

function handle(draftId: string, path: string, token: string): DraftLock {
  let released = false;
  return {
    draftId,
    path,
    release() {
      if (released) return;
      released = true;
      try {
        if (parseInfo(readFileSync(path, 'utf8'))?.token === token) unlinkSync(path);
      } catch {
        // already gone (broken as stale after 120 s): nothing to release
      }
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
