/**
 * The only module that loads better-sqlite3, and only when a verb actually opens the store: the draft verbs import
 * store modules but must start as fast as `node -e 0` when the DB file does not exist (docs/architecture.md).
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';

export type SqliteModule = typeof BetterSqlite3;

let cached: SqliteModule | undefined;

/**
 * The better-sqlite3 constructor, loaded on first use and cached for the process. Its native addon reads
 * `SQLITE_USE_URI` once, when the first connection loads it: URI file names are turned on there (only our own
 * absolute paths or `file:` URIs ever reach SQLite), for the `immutable` open of a read-only store (store/db.ts).
 * The variable is set around that load only, so no child process inherits it.
 */
export function loadSqlite(): SqliteModule {
  if (cached === undefined) {
    const before = process.env.SQLITE_USE_URI;
    process.env.SQLITE_USE_URI = '1';
    let Database: SqliteModule;
    try {
      Database = withAddon(createRequire(import.meta.url));
      new Database(':memory:').close();
    } finally {
      if (before === undefined) delete process.env.SQLITE_USE_URI;
      else process.env.SQLITE_USE_URI = before;
    }
    cached = Database;
  }
  return cached;
}

/**
 * better-sqlite3's JavaScript. Inside the CLI bundle `require` is the bundle's own and esbuild bundled the package's
 * lib/ (scripts/build.mjs): its code is in the V8 code cache, and no module is resolved, read and compiled at run
 * time (a dozen files, about a tenth of a store verb's start). Elsewhere (tsc output, tests) Node's loader reads it
 * from node_modules.
 */
function sqliteJs(fromNodeModules: NodeJS.Require): SqliteModule {
  // A literal require is what esbuild bundles.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const bundled = typeof require === 'function' ? (require('better-sqlite3') as SqliteModule) : undefined;
  return bundled ?? (fromNodeModules('better-sqlite3') as SqliteModule);
}

/**
 * better-sqlite3 finds its native addon through the `bindings` package, which captures a stack trace and tries a
 * dozen paths on every start. The addon is where npm builds or installs it, so it is required from there and handed
 * to every connection (`nativeBinding`); when it is elsewhere, the package in node_modules looks for it its own way.
 */
function withAddon(require: NodeJS.Require): SqliteModule {
  let addon: object;
  try {
    addon = require(
      join(dirname(require.resolve('better-sqlite3')), '..', 'build', 'Release', 'better_sqlite3.node'),
    ) as object;
  } catch {
    return require('better-sqlite3') as SqliteModule;
  }
  const Plain = sqliteJs(require);
  return class Database extends Plain {
    constructor(filename?: string | Buffer, options?: BetterSqlite3.Options) {
      super(filename, { ...options, nativeBinding: addon as unknown as string });
    }
  } as SqliteModule;
}

/** True once better-sqlite3 has been loaded in this process (tests pin the lazy-load rule with it). */
/** @public Tests ask the built module whether better-sqlite3 was loaded. */
export const sqliteLoaded = (): boolean => cached !== undefined;
