/**
 * Opening the store behind the Store interface (amendments-2.md §P1, §P4): `HANDOFF_STORE_URL=postgres://…` (or
 * postgresql://) selects PostgreSQL; unset or empty, the SQLite file of db.ts. Each backend's module is imported
 * only when selected, so the SQLite path never loads `pg` nor the PostgreSQL code, and a PostgreSQL call never loads
 * better-sqlite3.
 */
import { EXIT, HandoffError } from '../errors.js';
import { storeUrl, type Env } from '../paths.js';
import type { OpenMode, OpenOptions, Store, StoreKind } from './store.js';

/** Which backend `env` selects; a URL of another scheme is refused (exit 4) before anything is opened. */
export function storeKind(env: Env): StoreKind {
  const url = storeUrl(env);
  if (url === undefined) return 'sqlite';
  if (/^postgres(ql)?:\/\//i.test(url)) return 'postgres';
  throw new HandoffError(
    'STORE_UNREADABLE',
    EXIT.STORE,
    `HANDOFF_STORE_URL must be a postgres:// or postgresql:// URL, not ${JSON.stringify(url.split(':')[0])}://…`,
    {},
    'Set it to postgres://user:password@host:port/database, or unset it to use the SQLite file.',
  );
}

/**
 * The store as `mode` opens it (store.ts says what each mode may do): null when there is no store yet (no DB file;
 * an empty PostgreSQL database), except for a writer opened with `create`.
 */
export async function openStore(env: Env, cwd: string | undefined, mode: OpenMode, opts: OpenOptions = {}): Promise<Store | null> {
  if (storeKind(env) === 'postgres') {
    const { openPostgres } = await import('./pg-store.js');
    return openPostgres(storeUrl(env) as string, mode, opts);
  }
  const { openSqlite } = await import('./sqlite-store.js');
  return openSqlite(env, cwd, mode, opts);
}
