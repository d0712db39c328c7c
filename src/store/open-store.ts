/**
 * Opening the store behind the Store interface: `HANDOFF_STORE_URL=postgres://…` (or
 * postgresql://) selects PostgreSQL; unset or empty, the SQLite file of db.ts. Each backend's module is imported
 * only when selected, so the SQLite path never loads `pg` nor the PostgreSQL code, and a PostgreSQL call never loads
 * better-sqlite3.
 */
import { HandoffError } from '../errors.js';
import { storeExists, storeTimeoutMs, storeUrl, type Env } from '../paths.js';
import type { OpenMode, OpenOptions, Store, StoreKind } from './store.js';

/** Which backend `env` selects; a URL of another scheme is refused (exit 4) before anything is opened. */
export function storeKind(env: Env): StoreKind {
  const url = storeUrl(env);
  if (url === undefined) return 'sqlite';
  if (/^postgres(ql)?:\/\//i.test(url)) return 'postgres';
  throw new HandoffError(
    'STORE_UNREADABLE',
    `HANDOFF_STORE_URL must be a postgres:// or postgresql:// URL, not ${JSON.stringify(url.split(':')[0])}://…`,
    {},
    'Set it to postgres://user:password@host:port/database, or unset it to use the SQLite file.',
  );
}

/**
 * False when there is certainly no store: SQLite without its DB file (answered without loading anything). A
 * PostgreSQL URL may name a store: only opening it tells.
 */
export const mayHaveStore = (env: Env, cwd?: string): boolean => storeKind(env) === 'postgres' || storeExists(env, cwd);

/**
 * The store as `mode` opens it (store.ts says what each mode may do): null when there is no store yet (no DB file;
 * an empty PostgreSQL database), except for a writer opened with `create`.
 */
export async function openStore(
  env: Env,
  cwd: string | undefined,
  mode: OpenMode,
  opts: OpenOptions = {},
): Promise<Store | null> {
  if (storeKind(env) === 'postgres') {
    const { openPostgres } = await import('./pg-store.js');
    return openPostgres(storeUrl(env) as string, mode, { timeoutMs: storeTimeoutMs(env), ...opts });
  }
  const { openSqlite } = await import('./sqlite-store.js');
  return openSqlite(env, cwd, mode, opts);
}

/**
 * openStore, except that without a store and without `create` nothing is loaded (SQLite without its DB file): the
 * way a service opens the store before it knows it needs one.
 */
export async function openStoreIfAny(
  env: Env,
  cwd: string | undefined,
  mode: OpenMode,
  opts: OpenOptions = {},
): Promise<Store | null> {
  if (opts.create !== true && !mayHaveStore(env, cwd)) return null;
  return openStore(env, cwd, mode, opts);
}

/**
 * Opens the store as `mode`, runs `fn`, closes it; `absent()` when there is no store (on SQLite without its file
 * nothing of the store is loaded).
 */
export async function withStore<T>(
  env: Env,
  cwd: string | undefined,
  mode: OpenMode,
  fn: (store: Store) => Promise<T>,
  absent: () => T | Promise<T>,
): Promise<T> {
  if (!mayHaveStore(env, cwd)) return absent();
  const store = await openStore(env, cwd, mode);
  if (store === null) return absent();
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}
