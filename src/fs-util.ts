/** Small fs and process steps shared by the draft files and locks, the evidence blobs and payloads, and gc. */
import { closeSync, constants, lstatSync, openSync, unlinkSync, type Stats } from 'node:fs';

/** True when any directory entry (file, directory, dangling symlink, ...) exists at `path` (lstat: links not followed). */
export function entryExists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** lstat (links not followed), or undefined when the entry is gone or cannot be inspected. */
export function lstatQuiet(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

/** Whether a process with this pid exists on this host (EPERM: it exists, owned by someone else). */
export function pidAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes a file if it is there (cleanup: a file already gone, or any other failure, is not an error). */
export function unlinkQuiet(path: string | undefined): void {
  if (path === undefined) return;
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

/**
 * `use` on a descriptor opened read-only and non-blocking (a FIFO swapped in can never hang the call), closed
 * afterwards; undefined when the open or `use` fails.
 */
export function readQuietly<T>(path: string, use: (fd: number) => T | undefined): T | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    return use(fd);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
