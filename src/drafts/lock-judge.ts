/**
 * Judging a draft lock: what sits at the lock path, whether it is
 * stale, and the race-safe break. Stale = dead pid on this host, a live pid whose process start time (`proc_start`,
 * Linux /proc/<pid>/stat) differs from the recorded one (pid reuse), older than 120 s, or a lock path of the wrong
 * form (a symlink, dangling or not, a directory, any non-regular file), stale at once and removed itself, never
 * followed.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeFileSync,
  type Stats,
} from 'node:fs';
import { hostname } from 'node:os';
import { pidAlive, unlinkQuiet } from '../fs-util.js';

export const LOCK_STALE_MS = 120_000;

export interface LockInfo {
  pid: number;
  host: string;
  start: number;
  token: string;
  /** The owner's process start time (field 22 of /proc/<pid>/stat); absent in locks written before it existed. */
  proc_start?: string;
}

/**
 * The start time of process `pid` in clock ticks since boot (field 22 of `/proc/<pid>/stat`), as text; undefined
 * where /proc is not available. With the pid it names one process, so a reused pid is told apart from its owner.
 */
export function procStart(pid: number | 'self'): string | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // Field 2 (comm) is in parentheses and may hold spaces or `)`: count fields after the last `)`.
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const value = rest[22 - 3];
  return value !== undefined && /^[0-9]+$/.test(value) ? value : undefined;
}

let ownStart: string | undefined | null = null;
/** This process's own start time (read once). */
export const ownProcStart = (): string | undefined => (ownStart === null ? (ownStart = procStart('self')) : ownStart);

/** What sits at the lock path: a regular file (a lock, judged by its content) or an entry of the wrong form. */
export type LockForm = 'file' | 'symlink' | 'directory' | 'other';

export interface LockState {
  form: LockForm;
  info: LockInfo | undefined;
  ino: number;
  mtimeMs: number;
}

const formOf = (st: Stats): LockForm =>
  st.isFile() ? 'file' : st.isSymbolicLink() ? 'symlink' : st.isDirectory() ? 'directory' : 'other';

/**
 * What sits at the lock path, read without following links; undefined when nothing does. A regular file is read
 * from one descriptor (O_NOFOLLOW, non-blocking) with its inode; anything else is reported by its form.
 */
export function inspect(path: string): LockState | undefined {
  let entry: Stats;
  try {
    entry = lstatSync(path);
  } catch {
    return undefined;
  }
  if (!entry.isFile()) return { form: formOf(entry), info: undefined, ino: entry.ino, mtimeMs: entry.mtimeMs };
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch {
    return inspectAgain(path, entry);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { form: formOf(st), info: undefined, ino: st.ino, mtimeMs: st.mtimeMs };
    return { form: 'file', info: parseInfo(readFileSync(fd, 'utf8')), ino: st.ino, mtimeMs: st.mtimeMs };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** The regular file seen by lstat could not be opened: it was swapped (for a link) or removed meanwhile. */
function inspectAgain(path: string, before: Stats): LockState | undefined {
  try {
    const now = lstatSync(path);
    return now.isFile() && now.ino === before.ino
      ? undefined
      : { form: formOf(now), info: undefined, ino: now.ino, mtimeMs: now.mtimeMs };
  } catch {
    return undefined;
  }
}

function parseInfo(text: string): LockInfo | undefined {
  try {
    const v = JSON.parse(text) as Partial<LockInfo>;
    if (typeof v.pid === 'number' && typeof v.start === 'number' && typeof v.token === 'string') {
      const info: LockInfo = {
        pid: v.pid,
        host: typeof v.host === 'string' ? v.host : '',
        start: v.start,
        token: v.token,
      };
      if (typeof v.proc_start === 'string') info.proc_start = v.proc_start;
      return info;
    }
  } catch {
    // not ours: judged by its age below
  }
  return undefined;
}

/**
 * A lock path of the wrong form: stale at once. A lock older than 120 s: stale. On this host: a dead pid, or a live
 * pid whose process started at another time than the lock records (pid reuse; our own pid included). A lock without
 * `proc_start` keeps the older rule (dead pid). A lock we cannot parse gets 1 s of grace (a non-link writer).
 */
export function isStale(s: LockState): boolean {
  if (s.form !== 'file') return true;
  const now = Date.now();
  if (s.info === undefined) return now - s.mtimeMs > 1_000;
  if (now - s.info.start > LOCK_STALE_MS) return true;
  if (s.info.host !== hostname()) return false;
  const recorded = s.info.proc_start;
  if (s.info.pid === process.pid)
    return recorded !== undefined && ownProcStart() !== undefined && recorded !== ownProcStart();
  if (!pidAlive(s.info.pid)) return true;
  if (recorded === undefined) return false;
  const current = procStart(s.info.pid);
  return current !== undefined && current !== recorded;
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
      judged.info !== undefined
        ? now.info?.token === judged.info.token
        : now.form === judged.form &&
          now.info === undefined &&
          now.ino === judged.ino &&
          now.mtimeMs === judged.mtimeMs;
    if (same) removeEntry(path, now.form);
  } finally {
    unlinkQuiet(guard);
  }
}

/** Removes the entry itself: a symlink is unlinked (never followed), a directory removed with what it holds. */
function removeEntry(path: string, form: LockForm): void {
  try {
    if (form === 'directory') rmSync(path, { recursive: true, force: true });
    else unlinkSync(path);
  } catch {
    // gone meanwhile, or not removable: the next attempt judges it again
  }
}

/**
 * Takes the breakers' guard. A guard left by a killed breaker expires after GUARD_STALE_MS; a guard path of the
 * wrong form (planted) is removed at once, like a lock of the wrong form.
 */
function takeGuard(guard: string): boolean {
  try {
    writeFileSync(guard, `${process.pid}\n`, { mode: 0o600, flag: 'wx' });
    return true;
  } catch {
    try {
      const st = lstatSync(guard);
      if (!st.isFile()) removeEntry(guard, formOf(st));
      else if (Date.now() - st.mtimeMs > GUARD_STALE_MS) unlinkQuiet(guard);
    } catch {
      // gone meanwhile
    }
    return false; // the caller tries again after its sleep
  }
}
