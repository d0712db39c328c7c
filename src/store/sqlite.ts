/**
 * The only module that loads better-sqlite3, and only when a verb actually opens the store: the draft verbs import
 * store modules but must start as fast as `node -e 0` when the DB file does not exist (docs/architecture.md).
 */
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

export type SqliteModule = typeof BetterSqlite3;

let cached: SqliteModule | undefined;

/** The better-sqlite3 constructor, loaded on first use and cached for the process. */
export function loadSqlite(): SqliteModule {
  if (cached === undefined) {
    const require = createRequire(import.meta.url);
    cached = require('better-sqlite3') as SqliteModule;
  }
  return cached;
}

/** True once better-sqlite3 has been loaded in this process (tests pin the lazy-load rule with it). */
export const sqliteLoaded = (): boolean => cached !== undefined;
