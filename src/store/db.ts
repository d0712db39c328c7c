/**
 * Opening the store: probes, read verbs, writers, and the write transaction with its
 * retry rule. Store problems surface as STORE_* HandoffErrors (exit 4) naming the DB file and the SQLite message.
 *
 *   openProbe(env, cwd?)            read-only, never creates, never migrates; null when the file is absent
 *   openReader(env, cwd?)           read verbs: migrates an older file first; null when absent
 *   openWriter(env, cwd?, {create}) read-write, pragmas (synchronous FULL), creates (0700 dirs, 0600 file) when
 *                                   asked, after the migration list checked out; migrates
 *   promoteProbe(db)                a probe made a writer for a short write, when the store is current
 *   writeTx(db, fn, {attempts?})    BEGIN IMMEDIATE, whole-transaction retry on busy, then STORE_BUSY
 *   guard(db, fn)                   runs reads, mapping SQLite failures to the store codes
 *   hasTable(db, name), dbFileOf(db), closeDb(db)
 *   (kept-connections.ts: a long-running process keeps closed connections open for its next calls)
 */
import { accessSync, closeSync, constants, existsSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { HandoffError, isHandoffError } from '../errors.js';
import { dataRoot, ensureDataRoot, makeDirs, storeFile, type Env } from '../paths.js';
import { currentVersion, latestVersion, listMigrations, migrate, tooNew } from './migrate.js';
import { cacheStatements, closeQuietly, keeping, mayKeep, putBack, takeBack } from './kept-connections.js';
import { loadSqlite } from './sqlite.js';
import {
  isBusyError,
  isNoSpace,
  lowOnSpace,
  storeNeedsMigration,
  storeUnreadable,
  storeWriteFailed,
  toStoreError,
} from './store-errors.js';

export type Db = BetterSqlite3.Database;

/** `PRAGMA application_id` of a handoff store: ASCII "hand". */
export const APPLICATION_ID = 0x68616e64;
export const BUSY_TIMEOUT_MS = 5000;
const WRITE_ATTEMPTS = 3;

const files = new WeakMap<Db, string>();

/** The DB file a connection was opened on (for messages). */
export const dbFileOf = (db: Db): string => files.get(db) ?? db.name;

export function closeDb(db: Db | null | undefined): void {
  if (db != null && !putBack(db, dbFileOf(db), BUSY_TIMEOUT_MS)) closeQuietly(db);
}

/** A kept connection on `file` (kept-connections.ts), its busy waits bounded by `waitUntil`. */
function takeKept(file: string, waitUntil?: number): Db | undefined {
  const db = takeBack(file, () => !storeIsReadOnly(file));
  if (db !== undefined) limitBusyWait(db, waitUntil);
  return db;
}

/** The busy timeout that ends a wait by `waitUntil` (performance.now() ms), at most the usual one. */
const busyTimeoutMs = (waitUntil?: number): number =>
  waitUntil === undefined
    ? BUSY_TIMEOUT_MS
    : Math.max(0, Math.min(BUSY_TIMEOUT_MS, Math.floor(waitUntil - performance.now())));

/** Bounds the next busy waits of `db` by `waitUntil` (OpenOptions.waitUntil); nothing without one. */
export function limitBusyWait(db: Db, waitUntil: number | undefined): void {
  if (waitUntil !== undefined) db.pragma(`busy_timeout = ${busyTimeoutMs(waitUntil)}`);
}

/**
 * Opens `name` (a path, or a SQLite URI of `file`); `file` names the store in messages; `waitUntil` bounds its busy
 * waits (OpenOptions.waitUntil).
 */
function openRaw(name: string, options: BetterSqlite3.Options, file: string = name, waitUntil?: number): Db {
  const Database = loadSqlite();
  let db: Db;
  try {
    db = new Database(name, options);
  } catch (e) {
    throw toStoreError(e, file);
  }
  files.set(db, file);
  if (keeping()) cacheStatements(db);
  try {
    db.pragma(`busy_timeout = ${busyTimeoutMs(waitUntil)}`);
  } catch (e) {
    closeDb(db);
    throw toStoreError(e, file);
  }
  return db;
}

/**
 * Checks that `db` is a handoff store this build can read: application_id 0 or "hand"; an id-0 file holding tables
 * but no schema_version belongs to another application too; a version above the build's is refused. Writes nothing.
 */
function inspect(db: Db, file: string, migrationsDir?: string): number {
  // One read transaction, so the three reads see one state: read one by one, a first migration committed by another
  // process between them made a store that was being created look like another application's (version 0, then
  // tables).
  const read = (): { appId: number; version: number; anyTable: boolean } => ({
    appId: db.pragma('application_id', { simple: true }) as number,
    version: currentVersion(db),
    anyTable: db.prepare("SELECT 1 FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' LIMIT 1").get() !== undefined,
  });
  const { appId, version, anyTable } = db.inTransaction ? read() : db.transaction(read).deferred();
  const foreignId = appId !== 0 && appId !== APPLICATION_ID;
  const foreignTables = !foreignId && version === 0 && anyTable;
  if (foreignId || foreignTables) {
    const why = foreignId ? `application_id 0x${appId.toString(16).padStart(8, '0')}` : 'tables but no handoff schema';
    throw new HandoffError(
      'STORE_FOREIGN_DB',
      `${file} is a SQLite database of another application (${why}), not a handoff store; it was not changed`,
      {},
      'Point $HANDOFF_DB at a handoff store, or unset it.',
    );
  }
  const latest = latestVersion(migrationsDir);
  if (version > latest) throw tooNew(file, version, latest);
  return version;
}

function checked<T>(db: Db, file: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    closeDb(db);
    throw toStoreError(e, file);
  }
}

/** Connections opened on a store this process cannot write (a read-only data root or store file). */
const readOnlyHere = new WeakSet<Db>();
/** Read-only connections on a store older than the build, read as it is (nothing may migrate it). */
const olderSchema = new WeakMap<Db, { version: number; latest: number }>();

/** The store file or its folder cannot be written by this process (read-only mount, permissions). */
function storeIsReadOnly(file: string): boolean {
  try {
    accessSync(file, constants.W_OK);
    accessSync(dirname(file), constants.W_OK);
    return false;
  } catch {
    return true;
  }
}

/** A file path as a SQLite URI (`%`, `?` and `#` escaped), for the `immutable` open. */
const sqliteUri = (file: string, query: string): string =>
  `file:${file.replace(/[%?#]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`)}?${query}`;

/**
 * A read-only connection. On a store this process can write, it is opened without SQLite's `readonly` flag but with
 * `PRAGMA query_only = ON` (every write fails with SQLITE_READONLY): a `readonly` connection on a WAL store creates
 * the `-wal`/`-shm` files and can never remove them, so a read would leave files behind; this one removes them on
 * close like any last connection.
 *
 * On a read-only data root or store file WAL cannot create its `-shm` file. Without a `-wal`
 * file (or with an empty one) nothing is pending, so the store is opened `immutable`. A `-wal` file with its `-shm`
 * (left by a writer that was killed, or by one still running elsewhere) is read through SQLite's read-only WAL
 * support, which sees the latest writes. Only a non-empty `-wal` without its `-shm` cannot be read here: it may hold
 * the latest writes, and an immutable open would silently miss them (STORE_UNREADABLE, naming that reason).
 */
function openReadOnly(file: string, waitUntil?: number): Db {
  if (!storeIsReadOnly(file)) return openQueryOnly(file, waitUntil);
  const wal = fileSize(`${file}-wal`);
  if (wal !== undefined && existsSync(`${file}-shm`)) {
    const db = openRaw(file, { readonly: true, fileMustExist: true }, file, waitUntil);
    readOnlyHere.add(db);
    return db;
  }
  if (wal !== undefined && wal > 0) {
    throw storeUnreadable(
      file,
      `the store cannot be written here (read-only data root or file) and its -wal file (${file}-wal) has no -shm file beside it: the -wal may hold the latest writes, which a read-only open cannot read without it; open the store once where it is writable, or remove the read-only condition`,
    );
  }
  return openImmutable(file);
}

/**
 * The read connection on a store this process can write. Even a read needs room for WAL's `-shm` file: on a full disk
 * (no room to create or grow it) with nothing pending in a `-wal` file, the store is read `immutable` instead, so
 * reads (and the reads of a draft write, whose mirror is then skipped) still work; with a `-wal` holding writes, the
 * read cannot be done safely and is STORE_WRITE_FAILED ("no space").
 */
function openQueryOnly(file: string, waitUntil?: number): Db {
  // No -shm file means no connection is open; on an all but full disk, creating one would take the last free pages
  // (and could fail halfway), so the store is read immutable right away when nothing is pending.
  const idle = !existsSync(`${file}-shm`) && (fileSize(`${file}-wal`) ?? 0) === 0;
  if (idle && lowOnSpace(file)) return openImmutable(file);
  let db: Db | undefined;
  try {
    db = openRaw(file, { fileMustExist: true }, file, waitUntil);
    db.pragma('query_only = ON');
    db.pragma('schema_version'); // the first read maps the -shm file: a full disk fails here, not later
    return db;
  } catch (e) {
    closeDb(db);
    const mapped = toStoreError(e, file);
    if (!isHandoffError(mapped) || mapped.code !== 'STORE_WRITE_FAILED') throw mapped;
    if ((fileSize(`${file}-wal`) ?? 0) > 0) throw mapped;
  }
  return openImmutable(file);
}

/** A read-only connection that assumes the file does not change while it is open (nothing to coordinate with). */
function openImmutable(file: string): Db {
  const db = openRaw(sqliteUri(file, 'immutable=1'), { readonly: true }, file);
  readOnlyHere.add(db);
  return db;
}

/** The size of a file, or undefined when there is none. */
function fileSize(path: string): number | undefined {
  try {
    return statSync(path).size;
  } catch {
    return undefined;
  }
}

/** The DB file exists and this process cannot write it or its folder: open it for reading only. */
export function storeReadOnlyHere(env: Env, cwd?: string): boolean {
  const file = storeFile(env, cwd);
  return existsSync(file) && storeIsReadOnly(file);
}

/** True when `db` was opened on a store this process cannot write: nothing may write or migrate through it. */
export const isReadOnlyHere = (db: Db): boolean => readOnlyHere.has(db);

/**
 * Read-only connection for probes (cross-check, draft-verb reads, gc). Never creates, never migrates. `waitUntil`:
 * OpenOptions.waitUntil.
 */
export function openProbe(env: Env, cwd?: string, waitUntil?: number): Db | null {
  const file = storeFile(env, cwd);
  if (!existsSync(file)) return null;
  const db = takeKept(file, waitUntil) ?? openReadOnly(file, waitUntil);
  const version = checked(db, file, () => inspect(db, file));
  // A probe never migrates: an older store is read as it is, and a query its schema cannot answer is
  // STORE_NEEDS_MIGRATION (guard).
  if (version < latestVersion()) olderSchema.set(db, { version, latest: latestVersion() });
  markKeepable(db, version);
  return db;
}

/** A connection inspected at `version` may be kept when it is on a writable store at the build's version. */
function markKeepable(db: Db, version: number): void {
  mayKeep(db, version === latestVersion() && !readOnlyHere.has(db) && !olderSchema.has(db));
}

/** Connection for read verbs: read-only, unless the file is older than the build (then migrated first). */
export function openReader(env: Env, cwd?: string, waitUntil?: number): Db | null {
  const file = storeFile(env, cwd);
  if (!existsSync(file)) return null;
  const db = takeKept(file, waitUntil) ?? openReadOnly(file, waitUntil);
  const version = checked(db, file, () => inspect(db, file));
  const latest = latestVersion();
  markKeepable(db, version);
  if (version === latest) return db;
  if (isReadOnlyHere(db)) {
    // Nothing can migrate a read-only store; read it as it is, and a query its older schema cannot answer is
    // STORE_NEEDS_MIGRATION (guard).
    olderSchema.set(db, { version, latest });
    return db;
  }
  closeDb(db);
  return openWriter(env, cwd, { create: false, waitUntil });
}

/**
 * Turns a probe (openProbe) into a writer with openWriter's pragmas, for the short writes of a call that has already
 * read through it (a draft write's mirror): true when done. Only on a store already at this build's version, which a
 * writer would find with nothing to migrate; openWriter's checks (the migration list and the applied checksums) are
 * then not repeated on every write. False, with the probe unchanged, on a read-only or older store: the caller opens
 * a writer the usual way (which migrates, or reports why it cannot).
 */
export function promoteProbe(db: Db): boolean {
  if (readOnlyHere.has(db) || olderSchema.has(db)) return false;
  const file = dbFileOf(db);
  return checked(db, file, () => {
    if (currentVersion(db) !== latestVersion()) return false;
    db.pragma('query_only = OFF');
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    return true;
  });
}

export interface WriterOptions {
  create: boolean;
  /** The migrations folder (tests only); default: the package's `migrations/`. */
  migrationsDir?: string;
  /** OpenOptions.waitUntil. */
  waitUntil?: number;
}

/**
 * Read-write connection with the store's pragmas (`synchronous = FULL` set explicitly: better-sqlite3 builds SQLite
 * with NORMAL as the WAL default), migrated to the latest version. With `create`, a missing file (and its folders)
 * is created; without it a missing file gives null. The migration list is loaded and checked first, so
 * a packaging error (exit 70) never leaves an empty DB file behind.
 */
export function openWriter(env: Env, cwd?: string, opts: WriterOptions = { create: false }): Db | null {
  const file = storeFile(env, cwd);
  if (!existsSync(file) && !opts.create) return null;
  listMigrations(opts.migrationsDir);
  if (!existsSync(file)) createFile(env, cwd, file);
  const db = openRaw(file, { fileMustExist: true }, file, opts.waitUntil);
  checked(db, file, () => {
    inspect(db, file, opts.migrationsDir);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    migrate(db, file, opts.migrationsDir);
  });
  if (opts.migrationsDir === undefined) markKeepable(db, latestVersion());
  return db;
}

/**
 * Creates the DB file (0600) and its folder, one level at a time (never a recursive mkdir). Its
 * folder is the data root unless $HANDOFF_DB names another place: a data root that cannot be created is
 * DATA_ROOT_UNUSABLE, any other failure STORE_UNREADABLE (both exit 4).
 */
function createFile(env: Env, cwd: string | undefined, file: string): void {
  const dir = dirname(file);
  if (dir === dataRoot(env, cwd)) ensureDataRoot(env, cwd);
  try {
    makeDirs(dir);
    closeSync(openSync(file, constants.O_CREAT | constants.O_WRONLY, 0o600));
  } catch (e) {
    if (isNoSpace(e, file)) throw storeWriteFailed(file, `cannot create it: ${(e as Error).message}`);
    throw storeUnreadable(file, `cannot create it: ${(e as Error).message}`);
  }
}

function sleepMs(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Runs `fn` in one BEGIN IMMEDIATE transaction. A busy/locked failure retries the whole transaction, up to 3
 * attempts in total, sleeping 50 ms × attempt; then STORE_BUSY. Inside an open transaction `fn` simply runs.
 * `attempts: 1` makes one attempt only (the stop gate, which must stay inside the hook timeout: it waits at most the
 * busy timeout once).
 */
export function writeTx<T>(db: Db, fn: () => T, opts: { attempts?: number } = {}): T {
  if (db.inTransaction) return fn();
  const attempts = opts.attempts ?? WRITE_ATTEMPTS;
  const tx = db.transaction(fn);
  for (let attempt = 1; ; attempt++) {
    try {
      return tx.immediate();
    } catch (e) {
      if (isBusyError(e) && attempt < attempts) {
        sleepMs(50 * attempt);
        continue;
      }
      throw toStoreError(e, dbFileOf(db));
    }
  }
}

/**
 * Runs reads on `db`, turning SQLite failures (corrupt page, I/O error, busy) into the store codes. On a read-only
 * store of an older schema, a table or column the query needs and the schema lacks is STORE_NEEDS_MIGRATION.
 */
export function guard<T>(db: Db, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    const older = olderSchema.get(db);
    if (older !== undefined && e instanceof Error && /no such (table|column)/i.test(e.message)) {
      throw storeNeedsMigration(dbFileOf(db), older.version, older.latest, e.message);
    }
    throw toStoreError(e, dbFileOf(db));
  }
}

export function hasTable(db: Db, name: string): boolean {
  return guard(
    db,
    () => db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(name) !== undefined,
  );
}
