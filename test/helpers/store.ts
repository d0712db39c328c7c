/** Helpers for the store unit tests: throw-away DB files, migration folders cut at a version, schema dumps. */
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSqlite } from '../../src/store/sqlite.js';
import { listMigrations, migrate } from '../../src/store/migrate.js';
import type { Db } from '../../src/store/db.js';

export const tempDir = (prefix = 'handoff-store-'): string => mkdtempSync(join(tmpdir(), prefix));

/** A fresh temp folder holding the DB file path (not created) and an env pointing at it. */
export function tempStore(): { dir: string; file: string; env: NodeJS.ProcessEnv } {
  const dir = tempDir();
  const file = join(dir, 'handoff.db');
  return { dir, file, env: { HANDOFF_HOME: dir, HANDOFF_DB: file } };
}

/** A migrations folder holding the package's files 1…k, plus `extra` files (name → SQL). */
export function migrationsDir(k: number, extra: Record<string, string> = {}): string {
  const dir = tempDir('handoff-migrations-');
  for (const m of listMigrations().slice(0, k)) copyFileSync(m.path, join(dir, m.name));
  for (const [name, sql] of Object.entries(extra)) writeFileSync(join(dir, name), sql);
  return dir;
}

/** A raw read-write connection with the store pragmas (no migration). */
export function rawDb(file: string): Db {
  const Database = loadSqlite();
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  return db;
}

/** Builds a store at version k (files 1…k of this build). */
export function buildAt(file: string, k: number): Db {
  mkdirSync(join(file, '..'), { recursive: true });
  const db = rawDb(file);
  migrate(db, file, migrationsDir(k));
  return db;
}

const norm = (sql: string | null): string | null => (sql === null ? null : sql.replace(/\s+/g, ' ').trim());

/** `sqlite_schema` (type, name, tbl_name, normalized sql) and `PRAGMA table_info` of every table. */
export function schemaOf(db: Db): { objects: unknown[]; tables: Record<string, unknown[]> } {
  const objects = (
    db
      .prepare("SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name")
      .all() as { type: string; name: string; tbl_name: string; sql: string | null }[]
  ).map((o) => ({ ...o, sql: norm(o.sql) }));
  const tables: Record<string, unknown[]> = {};
  for (const o of objects as { type: string; name: string }[]) {
    if (o.type === 'table') tables[o.name] = db.pragma(`table_info(${o.name})`) as unknown[];
  }
  return { objects, tables };
}

/** The committed snapshot's text: every schema object's normalized SQL, one statement per line. */
export function schemaSnapshot(db: Db): string {
  const { objects } = schemaOf(db);
  const appId = db.pragma('application_id', { simple: true }) as number;
  const lines = (objects as { sql: string | null }[]).filter((o) => o.sql !== null).map((o) => `${o.sql};`);
  return [
    '-- Schema of a fresh handoff store (all migrations applied), normalized: one statement per line.',
    '-- Regenerate on purpose only: UPDATE_SCHEMA_SNAPSHOT=1 npx vitest run test/store/migrate.test.ts',
    `-- application_id ${appId}`,
    ...lines,
    '',
  ].join('\n');
}

/** What `fn` threw (a HandoffError's code, exit and message), or {} when it did not throw. */
export function caught(fn: () => unknown): { code?: string; exit?: number; message?: string } {
  try {
    fn();
  } catch (e) {
    return e as { code?: string; exit?: number; message?: string };
  }
  return {};
}
