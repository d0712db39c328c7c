/**
 * Maps SQLite failures to the store codes: one line naming the DB file and the
 * SQLite message, exit 4, never a stack trace.
 */
import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { HandoffError, isHandoffError } from '../errors.js';

interface SqliteLikeError extends Error {
  code: string;
}

export const isSqliteError = (e: unknown): e is SqliteLikeError =>
  e instanceof Error &&
  typeof (e as Partial<SqliteLikeError>).code === 'string' &&
  (e as SqliteLikeError).code.startsWith('SQLITE_');

/** SQLITE_BUSY / SQLITE_LOCKED and their extended codes: the write lock was not obtained. */
export const isBusyError = (e: unknown): boolean => isSqliteError(e) && /^SQLITE_(BUSY|LOCKED)(_|$)/.test(e.code);

const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

export const storeBusy = (file: string, detail: string): HandoffError =>
  new HandoffError(
    'STORE_BUSY',
    `the store ${file} stayed locked by another process past the busy timeout (${oneLine(detail)})`,
    {},
    'Retry in a moment.',
  );

export const storeUnreadable = (file: string, detail: string): HandoffError =>
  new HandoffError('STORE_UNREADABLE', `cannot use the store ${file}: ${oneLine(detail)}`);

/**
 * A read-only store of an older schema, read as it is, lacks a table or column the verb's query
 * needs; nothing may migrate it here.
 */
export const storeNeedsMigration = (file: string, version: number, latest: number, detail: string): HandoffError =>
  new HandoffError(
    'STORE_NEEDS_MIGRATION',
    `the store ${file} has schema version ${version} and cannot be migrated here (it is read-only); this verb needs version ${latest} (${oneLine(detail)})`,
    { db_version: version, build_version: latest },
    'Run any writing verb once where the store is writable (it migrates the store), then read it here.',
  );

/**
 * SQLite refused a write the caller had already checked (a CHECK, trigger or foreign-key constraint; e.g. an envelope
 * nested deeper than json_valid() accepts). The transaction was rolled back: nothing was written.
 */
export const storeWriteRefused = (file: string, what: string, detail: string): HandoffError =>
  new HandoffError(
    'STORE_WRITE_REFUSED',
    `the store ${file} refused ${what} (${oneLine(detail)}); nothing was written`,
    {},
    'The store was edited by hand or the envelope is outside what SQLite accepts; report the message.',
  );

/** A full disk (or quota): the store could not be written, and nothing was. Never STORE_UNREADABLE: the data is fine. */
export const storeWriteFailed = (file: string, detail: string): HandoffError =>
  new HandoffError(
    'STORE_WRITE_FAILED',
    `cannot write the store ${file}: no space left on its device (${oneLine(detail)}); nothing was written`,
    {},
    'Free space on that device (or raise the quota), then retry.',
  );

/** Below this much free space, an I/O error of SQLite is taken for a full disk (SQLite does not pass the errno on). */
const LOW_SPACE_BYTES = 1024 * 1024;

/** The device holding `file` has less than 1 MiB free (false when that cannot be told). */
export function lowOnSpace(file: string): boolean {
  try {
    const s = statfsSync(dirname(file));
    return s.bavail * s.bsize < LOW_SPACE_BYTES;
  } catch {
    return false;
  }
}

/**
 * The failure means there is no room to write: ENOSPC/EDQUOT from the file system, SQLITE_FULL, or an SQLite I/O
 * error (growing the -shm or -wal file, writing a page) while the device holding the store is all but full.
 */
export function isNoSpace(e: unknown, file: string): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  if (code === 'ENOSPC' || code === 'EDQUOT') return true;
  if (!isSqliteError(e)) return false;
  if (/^SQLITE_FULL(_|$)/.test(e.code)) return true;
  return /^SQLITE_IOERR(_|$)/.test(e.code) && lowOnSpace(file);
}

/** SQLITE_CONSTRAINT and its extended codes (CHECK, TRIGGER, FOREIGNKEY, NOTNULL, UNIQUE, ...). */
export const isConstraintError = (e: unknown): boolean => isSqliteError(e) && e.code.startsWith('SQLITE_CONSTRAINT');

/**
 * Converts an error raised while using the store: HandoffErrors pass through, busy/locked becomes STORE_BUSY, a full
 * disk STORE_WRITE_FAILED, every other SQLite or file-system failure STORE_UNREADABLE. A constraint or trigger violation is a bug in the caller and
 * is returned unchanged (INTERNAL, exit 70); finalize maps it to STORE_WRITE_REFUSED itself (storeWriteRefused).
 */
export function toStoreError(e: unknown, file: string): unknown {
  if (isHandoffError(e)) return e;
  if (isBusyError(e)) return storeBusy(file, (e as Error).message);
  if (isNoSpace(e, file)) return storeWriteFailed(file, (e as Error).message);
  if (isSqliteError(e)) return isConstraintError(e) ? e : storeUnreadable(file, e.message);
  const errno = (e as NodeJS.ErrnoException | undefined)?.code;
  if (typeof errno === 'string' && /^E[A-Z]+$/.test(errno)) return storeUnreadable(file, (e as Error).message);
  if (e instanceof TypeError && /database connection is not open|not a database/i.test(e.message)) {
    return storeUnreadable(file, e.message);
  }
  return e;
}
