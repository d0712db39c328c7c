/**
 * Maps SQLite failures to the store codes (store-and-finalize.md §2.4, §12): one line naming the DB file and the
 * SQLite message, exit 4, never a stack trace.
 */
import { EXIT, HandoffError, isHandoffError } from '../errors.js';

interface SqliteLikeError extends Error {
  code: string;
}

export const isSqliteError = (e: unknown): e is SqliteLikeError =>
  e instanceof Error && typeof (e as Partial<SqliteLikeError>).code === 'string' && (e as SqliteLikeError).code.startsWith('SQLITE_');

/** SQLITE_BUSY / SQLITE_LOCKED and their extended codes: the write lock was not obtained. */
export const isBusyError = (e: unknown): boolean => isSqliteError(e) && /^SQLITE_(BUSY|LOCKED)(_|$)/.test(e.code);

const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

export const storeBusy = (file: string, detail: string): HandoffError =>
  new HandoffError(
    'STORE_BUSY',
    EXIT.STORE,
    `the store ${file} stayed locked by another process past the busy timeout (${oneLine(detail)})`,
    {},
    'Retry in a moment.',
  );

export const storeUnreadable = (file: string, detail: string): HandoffError =>
  new HandoffError('STORE_UNREADABLE', EXIT.STORE, `cannot use the store ${file}: ${oneLine(detail)}`);

/**
 * Converts an error raised while using the store: HandoffErrors pass through, busy/locked becomes STORE_BUSY, every
 * other SQLite or file-system failure STORE_UNREADABLE. A constraint or trigger violation is a bug in the caller and
 * is returned unchanged (INTERNAL, exit 70).
 */
export function toStoreError(e: unknown, file: string): unknown {
  if (isHandoffError(e)) return e;
  if (isBusyError(e)) return storeBusy(file, (e as Error).message);
  if (isSqliteError(e)) return e.code.startsWith('SQLITE_CONSTRAINT') ? e : storeUnreadable(file, e.message);
  const errno = (e as NodeJS.ErrnoException | undefined)?.code;
  if (typeof errno === 'string' && /^E[A-Z]+$/.test(errno)) return storeUnreadable(file, (e as Error).message);
  if (e instanceof TypeError && /database connection is not open|not a database/i.test(e.message)) {
    return storeUnreadable(file, e.message);
  }
  return e;
}
