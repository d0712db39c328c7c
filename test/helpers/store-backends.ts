/**
 * The two backends of the Store interface for `describe.each(BACKENDS)`: each gives fresh, empty store locations,
 * opened through openStore, and a raw SQL door past the interface (literal SQL both dialects accept) for the tests
 * of the schema's own rules. SQLite: a temp DB file. PostgreSQL: a schema of its own in a database of this test file,
 * on the suite's server (test/helpers/pg.ts).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import type { OpenMode, OpenOptions, Store } from '../../src/store/store.js';
import { loadSqlite } from '../../src/store/sqlite.js';
import { REPO } from './cli.js';
import { dropDatabase, freshDatabase, freshSchema, sql } from './pg.js';
import { schemaOf } from './store.js';

export { REPO };

export interface Fresh {
  env: NodeJS.ProcessEnv;
  open(mode: OpenMode, opts?: OpenOptions): Promise<Store | null>;
  /** A writer with create: a migrated, empty store. */
  writer(opts?: OpenOptions): Promise<Store>;
  /** Raw statements past the interface; throws the driver's own error. */
  exec(text: string): Promise<void>;
  all(text: string): Promise<Record<string, unknown>[]>;
  /** Every schema object, normalized (fresh-versus-upgraded comparisons). */
  schema(): Promise<unknown>;
  /** The schema version recorded, 0 without schema_version. */
  version(): Promise<number>;
}

export interface Backend {
  name: 'sqlite' | 'postgres';
  fresh(): Promise<Fresh>;
  /** The migrations folder of this backend in the package. */
  migrations: string;
}

const tempDir = (prefix: string): string => mkdtempSync(join(tmpdir(), prefix));

function common(env: NodeJS.ProcessEnv, exec: Fresh['exec'], all: Fresh['all'], schema: Fresh['schema']): Fresh {
  const open = (mode: OpenMode, opts?: OpenOptions): Promise<Store | null> => openStore(env, undefined, mode, opts);
  return {
    env,
    open,
    async writer(opts) {
      const s = await open('writer', { ...opts, create: true });
      if (s === null) throw new Error('a writer with create opened no store');
      return s;
    },
    exec,
    all,
    schema,
    async version() {
      try {
        const rows = await all('SELECT MAX(version) AS v FROM schema_version');
        return Number(rows[0]?.v ?? 0);
      } catch {
        return 0;
      }
    },
  };
}

const sqlite: Backend = {
  name: 'sqlite',
  migrations: join(REPO, 'migrations'),
  fresh() {
    const dir = tempDir('handoff-iface-');
    const file = join(dir, 'handoff.db');
    const env = { HANDOFF_HOME: dir, HANDOFF_DB: file };
    const withDb = <T>(fn: (db: ReturnType<typeof rawOpen>) => T): T => {
      const db = rawOpen(file);
      try {
        return fn(db);
      } finally {
        db.close();
      }
    };
    return Promise.resolve(
      common(
        env,
        (text) => Promise.resolve().then(() => withDb((db) => void db.exec(text))),
        (text) => Promise.resolve().then(() => withDb((db) => db.prepare(text).all() as Record<string, unknown>[])),
        () => Promise.resolve().then(() => withDb((db) => schemaOf(db))),
      ),
    );
  },
};

function rawOpen(file: string) {
  const db = new (loadSqlite())(file);
  db.pragma('foreign_keys = ON');
  return db;
}

/** One database per test file (dropped after it), one schema per fresh store. */
let database: Promise<string> | undefined;
const fileDatabase = (): Promise<string> => {
  if (database === undefined) {
    database = freshDatabase();
    afterAll(async () => dropDatabase(await (database as Promise<string>)));
  }
  return database;
};

const postgres: Backend = {
  name: 'postgres',
  migrations: join(REPO, 'migrations', 'postgres'),
  async fresh() {
    const url = await freshSchema(await fileDatabase());
    const schemaName = new URL(url).searchParams.get('options')?.split('=')[1] ?? '';
    const env = { HANDOFF_HOME: tempDir('handoff-iface-'), HANDOFF_STORE_URL: url };
    const all = (text: string): Promise<Record<string, unknown>[]> => sql(url, text);
    return common(
      env,
      async (text) => void (await sql(url, text)),
      all,
      () => pgSchemaOf(url, schemaName),
    );
  },
};

/** Columns, constraints, indexes, triggers and functions of the URL's schema, its own name removed. */
async function pgSchemaOf(url: string, schema: string): Promise<unknown> {
  const strip = (rows: Record<string, unknown>[]): unknown[] =>
    rows.map((r) => JSON.parse(JSON.stringify(r).split(`${schema}.`).join('')) as unknown);
  const ns = `'${schema}'::regnamespace`;
  return {
    columns: strip(
      await sql(
        url,
        `SELECT table_name, column_name, ordinal_position, data_type, is_nullable, column_default, collation_name
           FROM information_schema.columns WHERE table_schema = '${schema}' ORDER BY table_name, ordinal_position`,
      ),
    ),
    constraints: strip(
      await sql(
        url,
        `SELECT conrelid::regclass::text AS t, conname, pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE connamespace = ${ns} ORDER BY 1, 2`,
      ),
    ),
    indexes: strip(
      await sql(url, `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = '${schema}' ORDER BY 1`),
    ),
    triggers: strip(
      await sql(
        url,
        `SELECT t.tgname, pg_get_triggerdef(t.oid) AS def FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
          WHERE NOT t.tgisinternal AND c.relnamespace = ${ns} ORDER BY 1`,
      ),
    ),
    functions: strip(await sql(url, `SELECT proname, prosrc FROM pg_proc WHERE pronamespace = ${ns} ORDER BY 1`)),
  };
}

export const BACKENDS: Backend[] = [sqlite, postgres];

/** What a promise rejected with (a HandoffError's code, exit and message), or {} when it resolved. */
export async function rejection(p: Promise<unknown>): Promise<{ code?: string; exit?: number; message?: string }> {
  try {
    await p;
  } catch (e) {
    return e as { code?: string; exit?: number; message?: string };
  }
  return {};
}

/** Runs a module script (ESM, top-level await) in a child node process; its exit code and stdout. */
export function runNode(
  script: string,
  args: string[] = [],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (code) => done({ code, stdout, stderr }));
  });
}

/** The built module `dist/<rel>` as an import specifier for child scripts. */
export const dist = (rel: string): string => JSON.stringify(join(REPO, 'dist', rel));
