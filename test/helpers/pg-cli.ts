/**
 * The CLI on a PostgreSQL store: a "host" is one data root (its own HANDOFF_HOME: drafts, locks) whose verbs run
 * with HANDOFF_STORE_URL set to a database of the suite's server (test/helpers/pg.ts). Two hosts sharing one URL are
 * two machines sharing one store.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { run, runAsync, tempHome, type RunOptions, type RunResult } from './cli.js';
import { sql } from './pg.js';

export interface PgHost {
  home: string;
  url: string;
  run(args: string[], opts?: RunOptions): RunResult;
  runAsync(args: string[], opts?: RunOptions): Promise<RunResult>;
  /** The draft files (ids) this host holds. */
  drafts(): string[];
}

export function pgHost(url: string, prefix = 'handoff-pg-host-'): PgHost {
  const home = tempHome(prefix);
  const env = (opts: RunOptions = {}) => ({ ...opts, env: { HANDOFF_STORE_URL: url, ...opts.env } });
  return {
    home,
    url,
    run: (args, opts) => run(home, args, env(opts)),
    runAsync: (args, opts) => runAsync(home, args, env(opts)),
    drafts: () => {
      const dir = join(home, 'drafts');
      return existsSync(dir)
        ? readdirSync(dir)
            .filter((f) => f.endsWith('.json') && !f.endsWith('.meta.json'))
            .map((f) => f.slice(0, -5))
        : [];
    },
  };
}

/** Runs a verb with `--json`, asserting exit 0; returns the parsed object. */
export function hostOk(host: PgHost, args: string[]): any {
  const r = host.run([...args, '--json']);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  return r.json;
}

/** `contract fill --json PATCH` (its --json is the patch, so no JSON output), asserting exit 0. */
export function fill(host: PgHost, id: string, patch: object): void {
  const r = host.run(['contract', 'fill', '--draft-id', id, '--json', JSON.stringify(patch)]);
  expect(r.code, r.stdout + r.stderr).toBe(0);
}

/** The handoffs row of `contractId` as the server holds it (bigint ids as numbers, as the store reads them). */
export async function pgRow(url: string, contractId: string): Promise<any> {
  const row = (await sql(url, 'SELECT * FROM handoffs WHERE contract_id = $1', [contractId]))[0];
  if (row === undefined) return undefined;
  for (const k of ['id', 'parent_handoff_id', 'brief_id', 'continues_handoff_id'])
    if (typeof row[k] === 'string') row[k] = Number(row[k]);
  return row;
}

export async function pgCount(url: string, table: string): Promise<number> {
  return Number((await sql<{ n: string }>(url, `SELECT COUNT(*) AS n FROM ${table}`))[0].n);
}

/** No SQLite store was made on this host: with the URL set, the store is the server. */
export const noSqliteFile = (host: PgHost): boolean => !existsSync(join(host.home, 'handoff.db'));
