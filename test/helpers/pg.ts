/**
 * Databases on the suite's PostgreSQL server (test/helpers/pg-global-setup.ts). Isolation: a test file makes its
 * own database (fresh from template0), and a test its own schema inside it (the URL's search_path), so one server
 * serves the whole run and no test sees another's rows.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

export const serverUrl = (): string => inject('handoffPgUrl');

const name = (prefix: string): string => `${prefix}_${randomBytes(6).toString('hex')}`;

/** Runs one statement with a short-lived connection to `url`. */
export async function sql<R = Record<string, unknown>>(
  url: string,
  text: string,
  values: unknown[] = [],
): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as R[];
  } finally {
    await client.end();
  }
}

/** The same server URL with another database name. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  u.search = '';
  return u.toString();
}

/** A new empty database; returns its URL. */
export async function freshDatabase(): Promise<string> {
  const db = name('handoff_test');
  await sql(serverUrl(), `CREATE DATABASE ${db} TEMPLATE template0`);
  return withDatabase(serverUrl(), db);
}

/** A new empty schema in the database of `dbUrl`; returns a URL whose search_path is that schema only. */
export async function freshSchema(dbUrl: string): Promise<string> {
  const schema = name('s');
  await sql(dbUrl, `CREATE SCHEMA ${schema}`);
  const u = new URL(dbUrl);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return u.toString();
}

/** Drops a database made by freshDatabase (ending its sessions). */
export async function dropDatabase(dbUrl: string): Promise<void> {
  const db = new URL(dbUrl).pathname.slice(1);
  await sql(serverUrl(), `DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
}

/**
 * freshDatabase for synchronous callers (the result-case tables, whose scenarios run the CLI synchronously): the
 * database is created by a short child process.
 */
export function freshDatabaseSync(): string {
  const db = name('handoff_test');
  const script = `const pg = require('pg'); const c = new pg.Client({ connectionString: process.argv[1] });
    c.connect().then(() => c.query('CREATE DATABASE ' + process.argv[2] + ' TEMPLATE template0')).then(() => c.end(), (e) => { console.error(e.message); process.exit(1); });`;
  const r = spawnSync(process.execPath, ['-e', script, serverUrl(), db], {
    encoding: 'utf8',
    cwd: import.meta.dirname,
  });
  if (r.status !== 0) throw new Error(`CREATE DATABASE ${db} failed: ${r.stderr}`);
  return withDatabase(serverUrl(), db);
}
