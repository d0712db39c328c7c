/**
 * The PostgreSQL store: the Store interface over a `pg` pool. Opened only when
 * HANDOFF_STORE_URL is a postgres:// URL (open-store.ts imports this module dynamically), and `pg` is loaded only
 * here (pg-driver.ts). Transactions run at READ COMMITTED on one pooled connection; the per-contract advisory lock
 * serializes the writers of one contract across hosts.
 */
import { HandoffError } from '../errors.js';
import type { MirrorOutcome } from './handoffs.js';
import { listMigrations } from './migrate.js';
import { DEFAULT_STORE_TIMEOUT_MS } from '../paths.js';
import {
  createPool,
  IDLE_IN_TX_MS,
  redactUrl,
  timeLimits,
  type PgPool,
  type PgPoolClient,
  type Run,
  type TimeLimits,
} from './pg-driver.js';
import { contractLockKey, LOCK_SPACE, txPreamble, type TxLimits } from './pg-locks.js';
import {
  connectClient,
  isPgBusy,
  isStatementTimeout,
  isUnreachable,
  storeUnreachable,
  toPgStoreError,
  whileFull,
} from './pg-errors.js';
import { onPg } from './pg-dialect.js';
import { checkCurrentPg, inspectPg, migratePg, PG_MIGRATIONS_DIR } from './pg-migrate.js';
import * as r from './pg-records.js';
import { storeReads, storeWrites } from './queries/index.js';
import { withOps, type Op } from './queries/op.js';
import type {
  BlobReads,
  BlobRef,
  BlobStore,
  OpenMode,
  OpenOptions,
  Store,
  StoreReads,
  StoreTx,
  TxOptions,
} from './store.js';

const WRITE_ATTEMPTS = 3;

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));
/** How long close() waits for the server to acknowledge the end of its connections (a frozen one never does). */
const CLOSE_WAIT_MS = 500;

/**
 * Ends the pool, waiting for the server's acknowledgement at most CLOSE_WAIT_MS. The wait's timer is cleared as soon
 * as the pool has ended: a pending timer keeps a process alive, and every PostgreSQL verb ended half a second late.
 */
async function endPool(pool: PgPool): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<void>((done) => (timer = setTimeout(done, CLOSE_WAIT_MS)));
  try {
    await Promise.race([pool.end().catch(() => undefined), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A COMMIT that got no answer (a timeout, a dropped connection): the server may or may not have committed. Never
 * retried; the caller decides what to keep (dispatch keeps its draft, so a later finalize converges either way).
 */
const commitUnknown = (location: string, e: unknown): HandoffError =>
  storeUnreachable(
    location,
    `the COMMIT got no answer, so the transaction may or may not have been written: ${(e as Error)?.message ?? String(e)}`,
    { outcome: 'unknown' },
  );

class PgConnection {
  constructor(
    protected readonly run: Run,
    readonly version: number,
  ) {}
  /** A shared operation (queries/), its statements through `run`. */
  runRead<T>(op: Op<T>): Promise<T> {
    return onPg(this.run, op, this.version);
  }
}

class PgReads extends withOps(PgConnection, storeReads, 'runRead') implements StoreReads {
  /** Blobs live in the `blobs` table: this store has the capability, served by the methods below. */
  readonly blobs: BlobReads = this;
  getBlob = (sha256: string): Promise<Buffer | undefined> => r.getBlob(this.run, sha256);
  blobSizes = (sha256s: readonly string[]): Promise<Map<string, number>> => r.blobSizes(this.run, sha256s);
}

class PgTx extends withOps(PgReads, storeWrites, 'runWrite') implements StoreTx {
  /** A shared write operation (queries/): on the transaction's client, as the reads. */
  runWrite<T>(op: Op<T>): Promise<T> {
    return onPg(this.run, op);
  }
  async lockContract(contractId: string): Promise<void> {
    await this.run('SELECT pg_advisory_xact_lock($1::integer, $2::integer)', [LOCK_SPACE, contractLockKey(contractId)]);
  }
  now = async (): Promise<string> => (await this.run<{ now: string }>('SELECT handoff_now() AS now')).rows[0].now;
  putBlob = (bytes: Buffer): Promise<BlobRef> => r.putBlob(this.run, bytes);
}

const usedAfterEnd = (): HandoffError =>
  new HandoffError('INTERNAL', 'a store transaction handle was used after its transaction ended');

/** Statements on a transaction's client; raw errors, so the transaction decides (retry, rollback, mapping). */
function clientRun(client: PgPoolClient, live: () => boolean): Run {
  return async <R>(text: string, values?: readonly unknown[]) => {
    if (!live()) throw usedAfterEnd();
    const res = await client.query(text, values as unknown[] | undefined);
    return { rows: res.rows as R[], rowCount: res.rowCount ?? 0 };
  };
}

/**
 * Statements on the pool, each its own transaction; failures become the store codes. A connect refused by a full
 * server or pooler (nothing sent yet) is retried within `budgetMs` (whileFull).
 */
function poolRun(pool: PgPool, location: string, budgetMs: number): Run {
  return async <R>(text: string, values?: readonly unknown[]) => {
    const res = await whileFull(() => pool.query(text, values as unknown[] | undefined), location, budgetMs);
    return { rows: res.rows as R[], rowCount: res.rowCount ?? 0 };
  };
}

class PgStore extends PgReads implements Store {
  readonly kind = 'postgres' as const;
  /** The reads on the pool; a put on the caller's transaction, which must be one of this backend's. */
  override readonly blobs: BlobStore = {
    getBlob: (sha256) => this.getBlob(sha256),
    blobSizes: (sha256s) => this.blobSizes(sha256s),
    putBlob: (t, bytes) =>
      t instanceof PgTx
        ? t.putBlob(bytes)
        : Promise.reject(new HandoffError('INTERNAL', 'a blob was put through a transaction of another store')),
  };
  /** What each transaction sets for itself (SET LOCAL): the store's limits; 0 for none (`store copy`). */
  private readonly txLimits: TxLimits;
  constructor(
    private readonly pool: PgPool,
    readonly location: string,
    version: number,
    private readonly writable: boolean,
    private readonly limits: TimeLimits,
  ) {
    super(poolRun(pool, location, limits.fullRetryMs), version);
    this.txLimits = { statementMs: limits.statementMs ?? 0, lockMs: limits.lockMs, idleInTxMs: IDLE_IN_TX_MS };
  }

  async tx<T>(fn: (t: StoreTx) => Promise<T>, opts: TxOptions = {}): Promise<T> {
    if (!this.writable) throw new HandoffError('INTERNAL', 'a store opened for reading cannot write; open a writer');
    const locks = [...new Set(typeof opts.lock === 'string' ? [opts.lock] : (opts.lock ?? []))].sort();
    const attempts = opts.attempts ?? WRITE_ATTEMPTS;
    for (let attempt = 1; ; attempt++) {
      const client = await connectClient(this.pool, this.location, this.limits.fullRetryMs);
      let live = true;
      let broken = false;
      const t = new PgTx(
        clientRun(client, () => live),
        this.version,
      );
      try {
        // One round trip: BEGIN, the limits, the transaction-scoped locks (released by COMMIT or ROLLBACK, on the
        // same server connection even behind a transaction pooler), then the transaction's clock, so a transaction
        // that waited for another is stamped after it (a decision that waited for a finalize is dated after its
        // finalized_at).
        await client.query(txPreamble(this.txLimits, locks));
        const result = await fn(t);
        try {
          await client.query('COMMIT');
        } catch (e) {
          if (!isUnreachable(e) && !isStatementTimeout(e)) throw e;
          broken = true;
          throw commitUnknown(this.location, e);
        }
        return result;
      } catch (e) {
        if (broken) throw e;
        broken = isUnreachable(e);
        // A ROLLBACK that fails leaves the connection in an unknown state: it is dropped, never pooled again.
        if (!broken)
          broken = await client.query('ROLLBACK').then(
            () => false,
            () => true,
          );
        if (isPgBusy(e) && attempt < attempts) {
          await sleep(50 * attempt);
          continue;
        }
        throw toPgStoreError(e, this.location);
      } finally {
        live = false;
        client.release(broken);
      }
    }
  }

  now = async (): Promise<string> => (await this.run<{ now: string }>('SELECT handoff_now() AS now')).rows[0].now;
  acceptsJson = async (json: string): Promise<boolean> =>
    (await this.run<{ ok: boolean }>('SELECT handoff_json_valid($1) AS ok', [json])).rows[0].ok;
  async mirrorNow(contractId: string, json: string, rev: number): Promise<MirrorOutcome> {
    if (!this.writable) throw new HandoffError('INTERNAL', 'a store opened for reading cannot write; open a writer');
    return this.runRead(storeWrites.mirrorEnvelope(contractId, json, rev));
  }

  async currentWriter(): Promise<Store | undefined> {
    if (this.writable) return this;
    if (this.version < listMigrations(PG_MIGRATIONS_DIR).length) return undefined;
    const client = await connectClient(this.pool, this.location, this.limits.fullRetryMs);
    try {
      return new PgStore(this.pool, this.location, await checkCurrentPg(client, this.location), true, this.limits);
    } finally {
      client.release();
    }
  }

  /** Ends the pool; a server that does not acknowledge (frozen, unreachable) is not waited for past CLOSE_WAIT_MS. */
  async close(): Promise<void> {
    if (this.pool.ending) return; // a writer and its probe share the pool: closed once
    await endPool(this.pool);
  }
}

/**
 * Opens the PostgreSQL store at `url`. An empty, unmigrated schema is "no
 * store yet": null, except for a writer with `create`, which migrates it. A reader or writer migrates an older
 * schema first; a probe reads it as it is. STORE_UNREACHABLE, STORE_FOREIGN_DB, STORE_SCHEMA_TOO_NEW and the
 * migration codes as on SQLite; a packaging error in the migration list is INTERNAL before the server is touched.
 */
export async function openPostgres(url: string, mode: OpenMode, opts: OpenOptions = {}): Promise<Store | null> {
  const location = redactUrl(url);
  const dir = opts.migrationsDir ?? PG_MIGRATIONS_DIR;
  const latest = listMigrations(dir).length;
  const limits = timeLimits(opts.timeoutMs === undefined ? DEFAULT_STORE_TIMEOUT_MS : opts.timeoutMs);
  if (opts.retryFull === false) limits.fullRetryMs = 0;
  const pool = createPool(url, limits);
  let store: Store | null = null;
  try {
    const client = await connectClient(pool, location, limits.fullRetryMs);
    try {
      let { version } = await inspectPg(client, location, dir).catch((e: unknown) => {
        throw toPgStoreError(e, location);
      });
      if (version === 0 && !(mode === 'writer' && opts.create === true)) return null;
      // A writer told not to migrate (the stop gate) reads an older schema as it is and writes nothing.
      if (mode === 'writer' && opts.migrate === false && version < latest) {
        store = new PgStore(pool, location, version, false, limits);
        return store;
      }
      // As on SQLite: a writer always runs the runner (which checks the applied checksums), a reader only when older.
      if (mode === 'writer' || (mode === 'reader' && version < latest))
        version = await migratePg(client, location, dir);
      store = new PgStore(pool, location, version, mode === 'writer', limits);
      return store;
    } finally {
      client.release();
    }
  } finally {
    if (store === null) await endPool(pool);
  }
}
