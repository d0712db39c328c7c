/**
 * Opening the store for the brief, evidence, receipt and gc services: one code path for both backends (the Store
 * interface of src/store/store.ts; the backend is loaded only when opened). Open, run, always close.
 */
import type { Env } from '../paths.js';
import type { Store } from '../store/store.js';

async function open(env: Env, cwd: string, mode: 'probe' | 'reader' | 'writer', create = false): Promise<Store | null> {
  const { openStore } = await import('../store/open-store.js');
  return openStore(env, cwd, mode, { create });
}

async function using<T>(
  store: Store | null,
  fn: (s: Store) => Promise<T> | T,
  absent: () => T | Promise<T>,
): Promise<T> {
  if (store === null) return absent();
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** A read verb's store (migrates an older one); `absent()` decides what "no store yet" means. */
export async function withReader<T>(
  env: Env,
  cwd: string,
  fn: (s: Store) => Promise<T> | T,
  absent: () => T | Promise<T>,
): Promise<T> {
  return using(await open(env, cwd, 'reader'), fn, absent);
}

/** A probe: never creates and never migrates (gc, orphans). */
export async function withProbe<T>(
  env: Env,
  cwd: string,
  fn: (s: Store) => Promise<T> | T,
  absent: () => T | Promise<T>,
): Promise<T> {
  return using(await open(env, cwd, 'probe'), fn, absent);
}

/** A writer's store; with `create: false` a missing store calls `absent()` and creates nothing. */
export async function withWriter<T>(
  env: Env,
  cwd: string,
  create: boolean,
  fn: (s: Store) => Promise<T> | T,
  absent: () => T | Promise<T>,
): Promise<T> {
  return using(await open(env, cwd, 'writer', create), fn, absent);
}

/** SQLSTATE class 22: data PostgreSQL cannot hold (a NUL character in text, an invalid byte sequence). */
const isDataRefusal = (e: unknown): boolean => {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^22[0-9A-Z]{3}$/.test(code);
};

/**
 * A write PostgreSQL refused for its data (class 22, e.g. a NUL character in text, which SQLite stores): rolled
 * back, nothing written; STORE_WRITE_REFUSED (exit 4) naming what was refused. Anything else is returned unchanged
 * (a constraint failure keeps the caller's own mapping, as on SQLite).
 */
export async function refusedAs(e: unknown, location: string, what: string): Promise<unknown> {
  if (!isDataRefusal(e)) return e;
  const { storeWriteRefused } = await import('../store/store-errors.js');
  return storeWriteRefused(location, what, (e as Error).message);
}
