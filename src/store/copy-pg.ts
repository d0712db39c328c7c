/**
 * The PostgreSQL side of `handoff store copy`: in ONE transaction, under an advisory lock,
 * check the target is still empty, insert every row verbatim (ids preserved), store the blobs, reset the identity
 * sequences, then read everything back and compare row counts and table digests, and rehash every blob. Any
 * difference rolls the whole copy back.
 */
import { HandoffError } from '../errors.js';
import {
  CONNECT_TIMEOUT_MS,
  createPool,
  IDLE_IN_TX_MS,
  LOCK_TIMEOUT_MS,
  timeLimits,
  type PgPoolClient,
} from './pg-driver.js';
import { connectClient, toPgStoreError } from './pg-errors.js';
import { inspectPg } from './pg-migrate.js';
import { COPY_TABLES, tableDigest, type Row } from './copy-tables.js';

/** The advisory lock of a copy (first key: ASCII "hand", as the per-contract locks; second: "copy"). */
const COPY_LOCK: [number, number] = [0x68616e64, 0x636f7079];

export interface CopyPlan {
  tables: Map<string, { columns: string[]; rows: Row[] }>;
  blobs: Map<string, Buffer>;
}

export interface CopyReport {
  tables: { name: string; rows: number; sha256: string }[];
  blobs: { count: number; bytes: number };
}

export const copyTargetNotEmpty = (location: string, counts: Record<string, number>): HandoffError =>
  new HandoffError(
    'STORE_COPY_TARGET_NOT_EMPTY',
    `the PostgreSQL store ${location} already holds rows (${Object.entries(counts)
      .filter(([, n]) => n > 0)
      .map(([t, n]) => `${t}: ${n}`)
      .join(', ')}); nothing was written`,
    { counts },
    'Copy into an empty database (CREATE DATABASE …), or keep using the store it already is.',
  );

export const copyFailed = (detail: string): HandoffError =>
  new HandoffError(
    'STORE_COPY_FAILED',
    `the copy was rolled back: ${detail}; nothing was written to the target`,
    {},
    'Fix what the message names (a missing or altered blob, a store the target cannot hold) and run the copy again.',
  );

/** Row counts of the copied tables and the blob table (the schema must exist). */
export async function targetCounts(client: PgPoolClient): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of [...COPY_TABLES.map((c) => c.name), 'blobs']) {
    out[t] = Number((await client.query<{ n: string }>(`SELECT COUNT(*) AS n FROM ${t}`)).rows[0].n);
  }
  return out;
}

const isEmpty = (counts: Record<string, number>): boolean => Object.values(counts).every((n) => n === 0);

/**
 * Before anything is written (no migration either): the target must be an empty database (no schema yet) or a
 * migrated store without a row. STORE_COPY_TARGET_NOT_EMPTY otherwise; STORE_FOREIGN_DB for another application's
 * tables.
 */
export async function precheckTarget(url: string, location: string): Promise<void> {
  const pool = createPool(url, timeLimits(null));
  try {
    const client = await connectClient(pool, location, CONNECT_TIMEOUT_MS);
    try {
      const { version } = await inspectPg(client, location);
      if (version === 0) return;
      const counts = await targetCounts(client);
      if (!isEmpty(counts)) throw copyTargetNotEmpty(location, counts);
    } catch (e) {
      throw toPgStoreError(e, location);
    } finally {
      client.release();
    }
  } finally {
    await pool.end().catch(() => undefined);
  }
}

/** Inserts `rows` in batches of multi-row INSERTs with explicit ids. */
async function insertRows(client: PgPoolClient, table: string, columns: string[], rows: Row[]): Promise<void> {
  const per = Math.max(1, Math.floor(30000 / columns.length));
  const cols = columns.map((c) => `"${c}"`).join(', ');
  const override = COPY_TABLES.find((t) => t.name === table)?.identity ? ' OVERRIDING SYSTEM VALUE' : '';
  for (let i = 0; i < rows.length; i += per) {
    const batch = rows.slice(i, i + per);
    const values: unknown[] = [];
    const tuples = batch.map((row) => `(${columns.map((c) => `$${values.push(row[c] ?? null)}`).join(', ')})`);
    await client.query(`INSERT INTO ${table} (${cols})${override} VALUES ${tuples.join(', ')}`, values);
  }
}

/** The copy itself (see the header). `location` is the redacted URL for messages. */
export async function copyIntoPg(url: string, location: string, plan: CopyPlan): Promise<CopyReport> {
  const pool = createPool(url, timeLimits(null));
  let client: PgPoolClient;
  try {
    client = await pool.connect();
  } catch (e) {
    await pool.end().catch(() => undefined);
    throw toPgStoreError(e, location);
  }
  try {
    // No statement limit (a copy may take a while); the lock waits and an idle transaction are bounded, set here
    // because nothing is set at connect (a transaction pooler refuses start-up parameters).
    await client.query(
      `BEGIN ISOLATION LEVEL READ COMMITTED; SET LOCAL lock_timeout = ${LOCK_TIMEOUT_MS}; SET LOCAL idle_in_transaction_session_timeout = ${IDLE_IN_TX_MS}`,
    );
    try {
      await client.query('SELECT pg_advisory_xact_lock($1::integer, $2::integer)', COPY_LOCK);
      const counts = await targetCounts(client);
      if (!isEmpty(counts)) throw copyTargetNotEmpty(location, counts);
      for (const t of COPY_TABLES) {
        const { columns, rows } = plan.tables.get(t.name) ?? { columns: [], rows: [] };
        await insertRows(client, t.name, columns, rows);
        if (t.identity && rows.length > 0) {
          await client.query(
            `SELECT setval(pg_get_serial_sequence('${t.name}', 'id'), (SELECT MAX(id) FROM ${t.name}))`,
          );
        }
      }
      for (const bytes of plan.blobs.values()) {
        await client.query(
          "INSERT INTO blobs (sha256, bytes, size) VALUES (encode(sha256($1::bytea), 'hex'), $1::bytea, $2)",
          [bytes, bytes.length],
        );
      }
      const report = await verifyCopy(client, plan);
      await client.query('COMMIT');
      return report;
    } catch (e) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw e;
    }
  } catch (e) {
    if (e instanceof HandoffError) throw e;
    const mapped = toPgStoreError(e, location);
    if (mapped !== e) throw mapped;
    throw copyFailed(`the target refused a row (${(e as Error).message})`);
  } finally {
    client.release();
    await pool.end().catch(() => undefined);
  }
}

/** Reads every copied table back (same columns, key order) and every blob: counts and digests must match. */
async function verifyCopy(client: PgPoolClient, plan: CopyPlan): Promise<CopyReport> {
  const tables: CopyReport['tables'] = [];
  for (const t of COPY_TABLES) {
    const { columns, rows } = plan.tables.get(t.name) ?? { columns: [], rows: [] };
    const back = (
      await client.query<Row>(
        `SELECT ${columns.map((c) => `"${c}"`).join(', ') || '1'} FROM ${t.name} ORDER BY ${t.key}`,
      )
    ).rows;
    const want = tableDigest(columns, rows);
    const got = tableDigest(columns, back);
    if (back.length !== rows.length)
      throw copyFailed(`${t.name} holds ${back.length} row(s) after the copy, not ${rows.length}`);
    if (got !== want)
      throw copyFailed(`the rows of ${t.name} read back differ from the source (sha256 ${got}, expected ${want})`);
    tables.push({ name: t.name, rows: rows.length, sha256: got });
  }
  const { rows } = await client.query<{ sha256: string; ok: boolean; size: string }>(
    "SELECT sha256, sha256 = encode(sha256(bytes), 'hex') AS ok, size FROM blobs",
  );
  const held = new Map(rows.map((r) => [r.sha256, r]));
  let bytes = 0;
  for (const [sha, buf] of plan.blobs) {
    const r = held.get(sha);
    if (r === undefined || !r.ok || Number(r.size) !== buf.length)
      throw copyFailed(`blob ${sha} did not arrive intact`);
    bytes += buf.length;
  }
  if (rows.length !== plan.blobs.size)
    throw copyFailed(`the blob table holds ${rows.length} blob(s), not ${plan.blobs.size}`);
  return { tables, blobs: { count: plan.blobs.size, bytes } };
}
