/**
 * The only module that loads `pg` (node-postgres), and only when a PostgreSQL store is opened:
 * with `HANDOFF_STORE_URL` unset nothing of it loads. The CLI bundle marks `pg` external (scripts/build.mjs), so this
 * `require` stays a run-time one.
 */
import { createRequire } from 'node:module';
import type Pg from 'pg';

export type PgModule = typeof Pg;
export type PgPool = Pg.Pool;
export type PgPoolClient = Pg.PoolClient;

let cached: PgModule | undefined;

export function loadPg(): PgModule {
  if (cached === undefined) {
    const require = createRequire(import.meta.url);
    cached = withNavigator(() => require('pg') as PgModule);
  }
  return cached;
}

/**
 * Runs `load` with a global `navigator` whose user agent is Node's, as Node 21 and later define it, when this Node has
 * none. While it loads, pg asks whether it runs in a Cloudflare Worker: it reads `navigator.userAgent`, and where
 * there is no `navigator` it builds a `Response` instead, which on Node 20 loads and compiles Node's whole fetch
 * implementation (about 15 ms of every PostgreSQL call, measured, for an answer the user agent gives). The global is
 * gone again when `load` returns, so nothing else in the process sees it.
 */
function withNavigator<T>(load: () => T): T {
  if ('navigator' in globalThis) return load();
  const userAgent = `Node.js/${process.versions.node.split('.')[0]}`;
  Object.defineProperty(globalThis, 'navigator', { value: { userAgent }, configurable: true, writable: true });
  try {
    return load();
  } finally {
    delete (globalThis as { navigator?: unknown }).navigator;
  }
}

/** True once `pg` has been loaded in this process (tests pin the lazy-load rule with it). */
/** @public Tests ask the built module whether `pg` was loaded. */
export const pgLoaded = (): boolean => cached !== undefined;

/** Without a statement limit (`store copy`), a server that does not answer a connect within this time is STORE_UNREACHABLE. */
export const CONNECT_TIMEOUT_MS = 5000;
/** Waiting for a lock (row, advisory, migration) longer than this is STORE_BUSY, as SQLite's busy_timeout. */
export const LOCK_TIMEOUT_MS = 5000;
/** A session idle inside a transaction this long is ended by the server, so a hung process frees its locks. */
export const IDLE_IN_TX_MS = 60_000;
/** A client-side wait that effectively never ends (setTimeout's largest delay): migrations and `store copy`. */
export const NO_LIMIT_MS = 2_147_483_647;

/**
 * The time limits of one store's connections, from HANDOFF_STORE_TIMEOUT_MS (`statementMs`). Inside a transaction the
 * server cancels a statement after `statementMs` (statement_timeout, set by the transaction itself: SET LOCAL, never
 * a startup parameter, which a pooler refuses); the client stops waiting for any statement's answer after the same
 * time (`queryMs`), which is what ends a call on a frozen server, a paused pooler or a network that drops traffic, and
 * what bounds a read outside a transaction: so no statement outlives the limit, whoever ends it (both are
 * STORE_UNREACHABLE, "no answer within the time limit"). Lock waits end earlier
 * (`lockMs`), so a lock wait is STORE_BUSY rather than a timeout; a connect (with its authentication) gets the same
 * limit as a statement (`connectMs`): a busy server that accepts a hundred connections at once needs a few seconds.
 * `statementMs` null: no statement limit (`store copy`), lock waits and connects as usual.
 */
export interface TimeLimits {
  statementMs: number | null;
  queryMs: number | null;
  lockMs: number;
  connectMs: number;
  /** How long a connect refused by a full server or pooler is retried (whileFull); 0: one attempt (the stop gate). */
  fullRetryMs: number;
}

export function timeLimits(statementMs: number | null): TimeLimits {
  if (statementMs === null)
    return {
      statementMs: null,
      queryMs: null,
      lockMs: LOCK_TIMEOUT_MS,
      connectMs: CONNECT_TIMEOUT_MS,
      fullRetryMs: CONNECT_TIMEOUT_MS,
    };
  return {
    statementMs,
    queryMs: statementMs,
    lockMs: Math.min(LOCK_TIMEOUT_MS, Math.max(1, Math.floor(statementMs / 2))),
    connectMs: statementMs,
    fullRetryMs: statementMs,
  };
}

const INT8_OID = 20;

/**
 * A pool for one store. bigint columns (ids, sizes, COUNT) arrive as numbers: every value the store holds is far
 * below 2^53, and the rows keep the types the SQLite repositories return. TCP keepalive is on, so a peer that
 * vanished is noticed on an idle connection too. No session setting is sent at connect (a transaction pooler refuses
 * startup parameters it does not know): each transaction sets its own limits (pg-locks.ts), the client bounds the
 * rest (`query_timeout`).
 */
export function createPool(url: string, limits: TimeLimits): PgPool {
  const pg = loadPg();
  const types = new pg.TypeOverrides();
  types.setTypeParser(INT8_OID, 'text', (v: string) => Number(v));
  const pool = new pg.Pool({
    connectionString: url,
    max: 4,
    connectionTimeoutMillis: limits.connectMs,
    ...(limits.queryMs === null ? {} : { query_timeout: limits.queryMs }),
    application_name: 'handoff',
    keepAlive: true,
    keepAliveInitialDelayMillis: Math.min(10_000, limits.connectMs),
    idleTimeoutMillis: 10_000,
    allowExitOnIdle: true,
    types,
  });
  // An idle connection the server ends (restart, idle timeout) must not crash the process; the next query reports it.
  pool.on('error', () => undefined);
  // Nor one that drops while a call holds it (pg emits 'error' on a checked-out client, where the pool listens no
  // more): the statement running or the next one fails, and that failure is the call's STORE_UNREACHABLE.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/** The URL as messages show it: the password (in the authority or a `password` parameter) replaced by `***`. */
export function redactUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `${url.split(':')[0]}://(unparsable URL)`;
  }
  if (u.password !== '') u.password = '***';
  for (const key of [...u.searchParams.keys()]) if (/pass/i.test(key)) u.searchParams.set(key, '***');
  return u.toString().replace(/%2A%2A%2A/g, '***');
}

/** One statement on a pool or on a transaction's client: the rows, and how many rows it changed. */
export type Run = <R = Record<string, unknown>>(
  text: string,
  values?: readonly unknown[],
) => Promise<{ rows: R[]; rowCount: number }>;
