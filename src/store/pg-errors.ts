/**
 * Maps PostgreSQL (node-postgres) failures to the store codes, as store-errors.ts does for SQLite: one line naming
 * the store (its URL, password redacted), exit 4, never a stack trace. Reads error objects only; never loads `pg`.
 */
import { HandoffError, isHandoffError } from '../errors.js';
import type { PgPool, PgPoolClient } from './pg-driver.js';
import { storeBusy, storeUnreadable } from './store-errors.js';

interface PgLikeError extends Error {
  code?: string;
}

const codeOf = (e: unknown): string | undefined =>
  e instanceof Error && typeof (e as PgLikeError).code === 'string' ? (e as PgLikeError).code : undefined;

/** A SQLSTATE (five characters) as the server sends it; network failures carry an errno such as ECONNREFUSED. */
const isSqlState = (code: string | undefined): code is string => code !== undefined && /^[0-9A-Z]{5}$/.test(code);

const NETWORK_ERRNO =
  /^(ECONNREFUSED|ECONNRESET|ECONNABORTED|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|EHOSTDOWN|ENOTFOUND|EAI_AGAIN|EPIPE)$/;
const DRIVER_CONNECT_FAILURE =
  /timeout exceeded when trying to connect|Connection terminated|connection timeout|Client has encountered a connection error/i;

/** The client stopped waiting for an answer (pg's query_timeout): the connection is in an unknown state. */
export const isClientTimeout = (e: unknown): boolean =>
  e instanceof Error && codeOf(e) === undefined && /^Query read timeout$/.test(e.message);

/** The server cancelled a statement (57014: its statement_timeout ran out, or an administrator cancelled it). */
export const isStatementTimeout = (e: unknown): boolean => codeOf(e) === '57014';

/**
 * The server did not answer or refused the connection: a network errno, the driver's connect or query timeout,
 * SQLSTATE class 08 (connection exception), 57P01-57P03 (shutting down, starting up) and 53300 (too many
 * connections). Such a connection is never used again.
 */
export function isUnreachable(e: unknown): boolean {
  const code = codeOf(e);
  if (code !== undefined && NETWORK_ERRNO.test(code)) return true;
  if (isSqlState(code)) return code.startsWith('08') || /^57P0[123]$/.test(code) || code === '53300';
  return e instanceof Error && (DRIVER_CONNECT_FAILURE.test(e.message) || isClientTimeout(e));
}

/** A pooler's full-pool refusals (PgBouncer: its client limit, a query that waited past query_wait_timeout). */
const POOL_FULL = /no more connections allowed|query_wait_timeout|pool(er)? (is )?full/i;

/**
 * A connection refused because the server or pooler is full, not down: "too many clients" (53300, also a role's or
 * a database's connection limit) or a pooler's full pool. Retried with backoff within the call's budget, then
 * STORE_BUSY (connectWithRetry).
 */
export const isTooManyClients = (e: unknown): boolean =>
  codeOf(e) === '53300' || (e instanceof Error && POOL_FULL.test(e.message));

/** Lock wait past lock_timeout (55P03), deadlock (40P01), serialization failure (40001): retry, then STORE_BUSY. */
export const isPgBusy = (e: unknown): boolean => ['55P03', '40P01', '40001'].includes(codeOf(e) ?? '');

/**
 * The server refused a write it checked itself: class 23 (a CHECK, a trigger of the schema, a unique or foreign
 * key) or class 22 (data the server cannot hold, e.g. a NUL character in text). Passed through unchanged, as
 * store-errors.ts passes SQLite's constraint errors, so the caller decides (finalize: STORE_WRITE_REFUSED).
 */
export const isPgRefusal = (e: unknown): boolean => {
  const code = codeOf(e);
  return isSqlState(code) && (code.startsWith('23') || code.startsWith('22'));
};

const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** What a message says about a call that ran out of time. */
const TIMEOUT_DETAIL = 'no answer within the time limit of a store call, HANDOFF_STORE_TIMEOUT_MS';

export const storeUnreachable = (location: string, detail: string, data: Record<string, unknown> = {}): HandoffError =>
  new HandoffError(
    'STORE_UNREACHABLE',
    `the PostgreSQL store ${location} did not answer in time or refused the connection (${oneLine(detail)})`,
    data,
    'Check that the server runs and that HANDOFF_STORE_URL names its host, port and database.',
  );

/**
 * HandoffErrors pass through; unreachable or out of time → STORE_UNREACHABLE; busy → STORE_BUSY; a refused write is returned
 * unchanged; any other server error (access denied, missing database, missing table) → STORE_UNREADABLE.
 */
export function toPgStoreError(e: unknown, location: string): unknown {
  if (isHandoffError(e)) return e;
  const message = e instanceof Error ? e.message : String(e);
  if (isClientTimeout(e) || isStatementTimeout(e)) return storeUnreachable(location, `${TIMEOUT_DETAIL}: ${message}`);
  if (isTooManyClients(e)) return storeBusy(location, message);
  if (isUnreachable(e)) return storeUnreachable(location, message);
  if (isPgBusy(e)) return storeBusy(location, message);
  if (isPgRefusal(e)) return e;
  if (isSqlState(codeOf(e))) return storeUnreadable(location, message);
  return e;
}

/** STORE_BUSY for a server or pooler that stayed full through a call's budget. */
const storeFull = (location: string, budgetMs: number, e: unknown): HandoffError =>
  new HandoffError(
    'STORE_BUSY',
    `the PostgreSQL store ${location} is busy: the server or its pooler refused new connections for ${budgetMs} ms, HANDOFF_STORE_TIMEOUT_MS (${oneLine(
      e instanceof Error ? e.message : String(e),
    )})`,
    {},
    'Retry in a moment; if it persists, raise the server or pooler connection limit or use fewer parallel calls.',
  );

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/**
 * Runs `attempt` (a connect, or a statement whose connect may be refused), retrying while the server or pooler is
 * full (isTooManyClients) with a growing, jittered pause (50 ms doubling to at most 1 s), as long as the next try
 * would start within `budgetMs` of the first: then STORE_BUSY. Any other failure is mapped as usual.
 */
export async function whileFull<T>(attempt: () => Promise<T>, location: string, budgetMs: number): Promise<T> {
  const deadline = Date.now() + budgetMs;
  for (let n = 0; ; n++) {
    try {
      return await attempt();
    } catch (e) {
      if (!isTooManyClients(e)) throw toPgStoreError(e, location);
      const pause = Math.min(1000, 50 * 2 ** n) * (0.5 + Math.random() / 2);
      if (Date.now() + pause >= deadline) throw storeFull(location, budgetMs, e);
      await sleep(pause);
    }
  }
}

/**
 * A client of `pool`; a full server or pooler is retried within `budgetMs` (then STORE_BUSY), any other failure to
 * connect is mapped like every other (STORE_UNREACHABLE, naming `location`).
 */
export function connectClient(pool: PgPool, location: string, budgetMs: number): Promise<PgPoolClient> {
  return whileFull(() => pool.connect(), location, budgetMs);
}
