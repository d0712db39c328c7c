/**
 * The migration runner. Migrations are the SQL files of the package's `migrations/`
 * folder, located relative to this module so the same code works from src/ (tests) and dist/ (the CLI). The runner
 * owns transactions, `foreign_keys` and the `schema_version` table; the files never touch them.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { HandoffError } from '../errors.js';
import type { Db } from './db.js';
import { toStoreError } from './store-errors.js';

export interface Migration {
  version: number;
  /** File name, e.g. `0001_init.sql`. */
  name: string;
  path: string;
}

export const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations/', import.meta.url));

const NAME_RE = /^(\d{4})_[a-z0-9]+(?:_[a-z0-9]+)*\.sql$/;

let cachedList: Migration[] | undefined;

/** The migration files of `dir`, checked: 4-digit names from 0001, contiguous, no duplicates (else INTERNAL, 70). */
export function listMigrations(dir: string = MIGRATIONS_DIR): Migration[] {
  if (dir === MIGRATIONS_DIR && cachedList !== undefined) return cachedList;
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((n) => n.endsWith('.sql'))
      .sort();
  } catch (e) {
    throw packaging(`cannot read the migrations folder ${dir}: ${(e as Error).message}`);
  }
  const list = names.map((name, i): Migration => {
    const m = NAME_RE.exec(name);
    if (m === null) throw packaging(`malformed migration file name ${JSON.stringify(name)} in ${dir}`);
    const version = Number(m[1]);
    if (version !== i + 1) {
      const what = version <= i ? 'duplicate' : 'gap before';
      throw packaging(`migration numbering is broken in ${dir}: ${what} ${name} (expected version ${i + 1})`);
    }
    return { version, name, path: join(dir, name) };
  });
  if (dir === MIGRATIONS_DIR) cachedList = list;
  return list;
}

/** The highest schema version this build understands. */
export const latestVersion = (dir?: string): number => listMigrations(dir).length;

function packaging(message: string): HandoffError {
  return new HandoffError('INTERNAL', `packaging bug: ${message}`);
}

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

const VERSION_TABLE = `CREATE TABLE IF NOT EXISTS schema_version (
  version    INTEGER PRIMARY KEY,
  name       TEXT NOT NULL,
  checksum   TEXT NOT NULL,
  applied_at TEXT NOT NULL
)`;

const hasVersionTable = (db: Db): boolean =>
  db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'schema_version'").get() !== undefined;

/** `MAX(version)` of schema_version, 0 when the table is absent (an empty or foreign-free fresh file). */
export function currentVersion(db: Db): number {
  if (!hasVersionTable(db)) return 0;
  const row = db.prepare('SELECT MAX(version) AS v FROM schema_version').get() as { v: number | null };
  return row.v ?? 0;
}

export const tooNew = (file: string, version: number, latest: number): HandoffError =>
  new HandoffError(
    'STORE_SCHEMA_TOO_NEW',
    `the store ${file} has schema version ${version}; this build of handoff understands up to ${latest}`,
    { db_version: version, build_version: latest },
    'Upgrade handoff.',
  );

/**
 * Brings `db` (opened read-write, pragmas set) up to the latest version. Throws
 * STORE_SCHEMA_TOO_NEW, STORE_MIGRATION_MISMATCH, STORE_MIGRATION_FAILED or STORE_BUSY (all exit 4).
 */
export function migrate(db: Db, file: string, dir?: string): void {
  const list = listMigrations(dir);
  const latest = list.length;
  const v = currentVersion(db);
  if (v > latest) throw tooNew(file, v, latest);
  if (v > 0) verifyApplied(db, file, list);
  for (const m of list) if (m.version > v) applyOne(db, file, m, latest);
}

function verifyApplied(db: Db, file: string, list: Migration[]): void {
  checkApplied(
    db.prepare('SELECT version, name, checksum FROM schema_version ORDER BY version').all() as AppliedMigration[],
    list,
    file,
  );
}

/** A row of schema_version, as both backends record it. */
export interface AppliedMigration {
  version: number;
  name: string;
  checksum: string;
}

/**
 * For both backends: every applied version must have its file in this build with the recorded sha256,
 * else STORE_MIGRATION_MISMATCH (exit 4; nothing is applied). `file` is what the message names (a DB file or a URL).
 */
export function checkApplied(applied: readonly AppliedMigration[], list: Migration[], file: string): void {
  for (const row of applied) {
    const m = list[row.version - 1];
    let actual: string | undefined;
    try {
      actual = m === undefined ? undefined : sha256(readFileSync(m.path));
    } catch {
      actual = undefined;
    }
    if (m === undefined || actual === undefined || actual !== row.checksum) {
      const why =
        m === undefined ? 'has no migration file in this build' : `${m.name} does not match its recorded checksum`;
      throw new HandoffError(
        'STORE_MIGRATION_MISMATCH',
        `the store ${file} was migrated with a different version ${row.version} (${row.name}): this build ${why}; nothing was applied`,
        { version: row.version },
        'Use the handoff build that created this store, or restore the original migration files.',
      );
    }
  }
}

/** The text of a pending migration and its checksum (a file that cannot be read is a packaging bug, exit 70). */
export function readMigration(m: Migration): { sql: Buffer; checksum: string } {
  try {
    const sql = readFileSync(m.path);
    return { sql, checksum: sha256(sql) };
  } catch (e) {
    throw packaging(`cannot read ${m.path}: ${(e as Error).message}`);
  }
}

/** STORE_MIGRATION_FAILED (exit 4): the migration was rolled back; the message names the file and the store's error. */
export const migrationFailed = (m: Migration, file: string, detail: string): HandoffError =>
  new HandoffError(
    'STORE_MIGRATION_FAILED',
    `migration ${m.name} failed on the store ${file} and was rolled back: ${detail.replace(/\s+/g, ' ')}`,
    { migration: m.name },
  );

function applyOne(db: Db, file: string, m: Migration, latest: number): void {
  const { sql, checksum } = readMigration(m);
  db.pragma('foreign_keys = OFF');
  try {
    try {
      db.exec('BEGIN IMMEDIATE');
    } catch (e) {
      throw toStoreError(e, file);
    }
    try {
      const now = currentVersion(db);
      if (now > latest) throw tooNew(file, now, latest);
      if (now >= m.version) {
        db.exec('COMMIT');
        return;
      }
      db.exec(VERSION_TABLE);
      db.exec(sql.toString('utf8'));
      const violations = db.pragma('foreign_key_check') as unknown[];
      if (violations.length > 0) throw new Error(`foreign_key_check reported ${violations.length} violation(s)`);
      db.prepare('INSERT INTO schema_version (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)').run(
        m.version,
        m.name,
        checksum,
        new Date().toISOString(),
      );
      db.exec('COMMIT');
    } catch (e) {
      if (db.inTransaction) db.exec('ROLLBACK');
      if (e instanceof HandoffError) throw e;
      throw migrationFailed(m, file, (e as Error).message);
    }
  } finally {
    db.pragma('foreign_keys = ON');
  }
}
