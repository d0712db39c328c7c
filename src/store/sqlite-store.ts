/**
 * The SQLite store behind the Store interface: the shared operations (queries/) run synchronously on the connection
 * (onSqlite). A transaction is BEGIN IMMEDIATE … COMMIT around an async function, with writeTx's retry rule (3
 * attempts, 50 ms × attempt, then STORE_BUSY). One connection runs one transaction at a time: later `tx` calls on
 * the same store wait for the earlier ones.
 */
import { HandoffError } from '../errors.js';
import type { Env } from '../paths.js';
import {
  closeDb,
  dbFileOf,
  guard,
  limitBusyWait,
  openProbe,
  openReader,
  openWriter,
  promoteProbe,
  type Db,
} from './db.js';
import { sqliteAcceptsJson } from './finalize-row.js';
import { mirrorEnvelope } from './sqlite-rows.js';
import type { MirrorOutcome } from './handoffs.js';
import { currentVersion } from './migrate.js';
import { storeReads, storeWrites } from './queries/index.js';
import { withOps, type Op } from './queries/op.js';
import { onSqlite } from './sqlite-dialect.js';
import { isBusyError, toStoreError } from './store-errors.js';
import type { OpenMode, OpenOptions, Store, StoreReads, StoreTx, TxOptions } from './store.js';

const WRITE_ATTEMPTS = 3;
const now = (): string => new Date().toISOString();
const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/** The value of a synchronous call as a promise: a throw becomes a rejection (as on PostgreSQL), never a sync throw. */
const settle = <T>(fn: () => T): Promise<T> => new Promise<T>((resolve) => resolve(fn()));

class SqliteConnection {
  /** `waitUntil`: OpenOptions.waitUntil, applied before each call that may wait on a lock. */
  constructor(
    protected readonly db: Db,
    protected readonly waitUntil?: number,
  ) {}
  /** The schema version of a store read as it is (SqliteStore); a transaction's store is at the build's. */
  readonly version?: number;
  /** Runs a read, mapping SQLite failures to the store codes (the repositories that do not guard themselves). */
  protected read<T>(fn: (db: Db) => T): Promise<T> {
    return settle(() =>
      guard(this.db, () => {
        limitBusyWait(this.db, this.waitUntil);
        return fn(this.db);
      }),
    );
  }
  /** A shared read operation (queries/), run by `read`. */
  runRead<T>(op: Op<T>): Promise<T> {
    return this.read((db) => onSqlite(db, op, undefined, this.version));
  }
}

/** Blobs stay files under the evidence root (src/evidence/blob.ts): no `blobs` capability here. */
class SqliteReads extends withOps(SqliteConnection, storeReads, 'runRead') implements StoreReads {}

class SqliteTx extends withOps(SqliteReads, storeWrites, 'runWrite') implements StoreTx {
  live = false;
  /** Runs a write of the open transaction; a leaked handle is refused rather than writing outside it. */
  private write<T>(fn: (db: Db) => T): Promise<T> {
    return settle(() => {
      if (!this.live || !this.db.inTransaction) {
        throw new HandoffError('INTERNAL', 'a store transaction handle was used after its transaction ended');
      }
      return fn(this.db);
    });
  }
  /** A shared write operation (queries/), run by `write`: row times are the process clock as it starts. */
  runWrite<T>(op: Op<T>): Promise<T> {
    return this.write((db) => onSqlite(db, op));
  }
  // BEGIN IMMEDIATE already holds the one write lock of the file: nothing more to take.
  lockContract = (_contractId: string): Promise<void> => this.write(() => undefined);
  now = (): Promise<string> => Promise.resolve(now());
}

class SqliteStore extends SqliteReads implements Store {
  readonly kind = 'sqlite' as const;
  readonly location: string;
  override readonly version: number;
  private readonly t: SqliteTx;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    db: Db,
    private readonly writable: boolean,
    waitUntil?: number,
  ) {
    super(db, waitUntil);
    this.location = dbFileOf(db);
    this.version = guard(db, () => currentVersion(db));
    this.t = new SqliteTx(db);
  }

  tx<T>(fn: (t: StoreTx) => Promise<T>, opts: TxOptions = {}): Promise<T> {
    if (!this.writable)
      return Promise.reject(new HandoffError('INTERNAL', 'a store opened for reading cannot write; open a writer'));
    const run = this.queue.then(() => this.runTx(fn, opts.attempts ?? WRITE_ATTEMPTS));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async runTx<T>(fn: (t: StoreTx) => Promise<T>, attempts: number): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        limitBusyWait(this.db, this.waitUntil);
        this.db.exec('BEGIN IMMEDIATE');
        this.t.live = true;
        const result = await fn(this.t);
        this.db.exec('COMMIT');
        return result;
      } catch (e) {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        if (isBusyError(e) && attempt < attempts) {
          await sleep(50 * attempt);
          continue;
        }
        throw toStoreError(e, this.location);
      } finally {
        this.t.live = false;
      }
    }
  }

  /**
   * The mirror outside `tx`: sqlite-rows.ts mirrorEnvelope reads the row's revision first (no write lock when the row holds
   * it already) and commits its UPDATE in a transaction of its own, at synchronous = NORMAL. Queued behind this
   * store's open transaction, like `tx`.
   */
  mirrorNow(contractId: string, json: string, rev: number): Promise<MirrorOutcome> {
    if (!this.writable)
      return Promise.reject(new HandoffError('INTERNAL', 'a store opened for reading cannot write; open a writer'));
    const run = this.queue.then(() =>
      settle(() => {
        limitBusyWait(this.db, this.waitUntil);
        return mirrorEnvelope(this.db, contractId, json, rev);
      }),
    );
    this.queue = run.catch(() => undefined);
    return run;
  }

  now = (): Promise<string> => Promise.resolve(now());
  acceptsJson = (json: string): Promise<boolean> => settle(() => sqliteAcceptsJson(json));
  /**
   * A writer over this store's own connection (no second open, db.ts promoteProbe); undefined on a read-only or older
   * store (the caller opens a writer the usual way). Closing either closes both.
   */
  currentWriter = (): Promise<Store | undefined> =>
    settle(() =>
      this.writable ? this : promoteProbe(this.db) ? new SqliteStore(this.db, true, this.waitUntil) : undefined,
    );
  close = (): Promise<void> => settle(() => closeDb(this.db));
}

/** Opens the SQLite store as `mode` with db.ts's open functions (null when the DB file is absent). */
export function openSqlite(env: Env, cwd: string | undefined, mode: OpenMode, opts: OpenOptions = {}): Store | null {
  const db =
    mode === 'probe'
      ? openProbe(env, cwd, opts.waitUntil)
      : mode === 'reader'
        ? openReader(env, cwd, opts.waitUntil)
        : openWriter(env, cwd, {
            create: opts.create === true,
            migrationsDir: opts.migrationsDir,
            waitUntil: opts.waitUntil,
          });
  return db === null ? null : new SqliteStore(db, mode === 'writer', opts.waitUntil);
}
