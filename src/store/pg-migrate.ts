/**
 * The PostgreSQL migration runner (the SQLite one is migrate.ts). The files are
 * `migrations/postgres/NNNN_name.sql`, numbered as the SQLite ones, append-only and checksummed. The store is the
 * connection's current schema (the first existing schema of its search_path). Each file is applied in its own
 * transaction, which first takes the migration lock (a transaction-scoped advisory lock, so nothing outlives it behind
 * a transaction pooler) and re-reads the version under it; a schema already current takes no lock at all.
 */
import { fileURLToPath } from 'node:url';
import { HandoffError } from '../errors.js';
import {
  checkApplied,
  listMigrations,
  migrationFailed,
  readMigration,
  tooNew,
  type AppliedMigration,
  type Migration,
} from './migrate.js';
import type { QueryConfig } from 'pg';
import { IDLE_IN_TX_MS, LOCK_TIMEOUT_MS, NO_LIMIT_MS, type PgPoolClient } from './pg-driver.js';
import { isPgBusy, isUnreachable, toPgStoreError } from './pg-errors.js';
import { storeUnreadable } from './store-errors.js';

export const PG_MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations/postgres/', import.meta.url));

/** pg_advisory_xact_lock key of the migration runner: ASCII "handmigr" (one bigint key; contract locks use two int4 keys). */
const MIGRATION_LOCK = '7521414230296848242';

const VERSION_TABLE = `CREATE TABLE IF NOT EXISTS schema_version (
  version    integer PRIMARY KEY,
  name       text COLLATE "C" NOT NULL,
  checksum   text COLLATE "C" NOT NULL,
  applied_at text COLLATE "C" NOT NULL
)`;

export interface PgSchemaInfo {
  schema: string;
  version: number;
}

/**
 * What the connection's current schema holds: the handoff schema version (0 when it has no schema_version table).
 * A schema with tables but no schema_version, or with a schema_version of another shape, is STORE_FOREIGN_DB; a
 * version above the build's is STORE_SCHEMA_TOO_NEW. Writes nothing.
 */
export async function inspectPg(
  client: PgPoolClient,
  location: string,
  dir = PG_MIGRATIONS_DIR,
): Promise<PgSchemaInfo> {
  const head = await client.query<{ schema: string | null }>('SELECT current_schema() AS schema');
  const schema = head.rows[0]?.schema ?? null;
  if (schema === null) throw storeUnreadable(location, 'no schema of its search_path exists');
  const { rows } = await client.query<{ tables: boolean; version_table: boolean; shaped: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM pg_tables WHERE schemaname = $1) AS tables,
            EXISTS (SELECT 1 FROM pg_tables WHERE schemaname = $1 AND tablename = 'schema_version') AS version_table,
            EXISTS (SELECT 1 FROM information_schema.columns
                     WHERE table_schema = $1 AND table_name = 'schema_version' AND column_name = 'checksum') AS shaped`,
    [schema],
  );
  const { tables, version_table: versionTable, shaped } = rows[0];
  if ((tables && !versionTable) || (versionTable && !shaped)) {
    throw new HandoffError(
      'STORE_FOREIGN_DB',
      `schema ${JSON.stringify(schema)} of ${location} belongs to another application (${versionTable ? 'a schema_version table of another shape' : 'tables but no handoff schema'}), not a handoff store; it was not changed`,
      {},
      'Point HANDOFF_STORE_URL at an empty database (or set its search_path to an empty schema), or unset it.',
    );
  }
  const version = versionTable ? await versionOf(client) : 0;
  const latest = listMigrations(dir).length;
  if (version > latest) throw tooNew(location, version, latest);
  return { schema, version };
}

async function versionOf(client: PgPoolClient): Promise<number> {
  const { rows } = await client.query<{ v: number | null }>('SELECT MAX(version) AS v FROM schema_version');
  return rows[0].v ?? 0;
}

/**
 * Whether the current schema has a schema_version table, read from the catalog table itself (the statement's
 * snapshot), not through the server's name cache as to_regclass() is: a migrator that has just waited for the lock
 * inside its transaction must see the table another migrator committed meanwhile, and that cache is refreshed only at
 * the transaction's start or at a relation lock.
 */
async function hasVersionTable(client: PgPoolClient): Promise<boolean> {
  const { rows } = await client.query<{ t: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
                     WHERE n.nspname = current_schema() AND c.relname = 'schema_version') AS t`,
  );
  return rows[0].t;
}

/**
 * Brings the current schema up to the latest version on PostgreSQL: refuses a newer schema (STORE_SCHEMA_TOO_NEW) and
 * edited or missing files (STORE_MIGRATION_MISMATCH), then applies each pending file in its own transaction under
 * the migration lock (STORE_MIGRATION_FAILED on an error: that file leaves no trace, earlier ones stay). A schema
 * already current is only checked, without the lock. Returns the version reached.
 */
export async function migratePg(client: PgPoolClient, location: string, dir = PG_MIGRATIONS_DIR): Promise<number> {
  const list = listMigrations(dir);
  const latest = list.length;
  try {
    const v = (await hasVersionTable(client)) ? await versionOf(client) : 0;
    if (v > latest) throw tooNew(location, v, latest);
    if (v > 0) {
      const applied = await client.query<AppliedMigration>(
        'SELECT version, name, checksum FROM schema_version ORDER BY version',
      );
      checkApplied(applied.rows, list, location);
    }
    for (const m of list) if (m.version > v) await applyOne(client, location, m, latest);
    return latest;
  } catch (e) {
    throw toPgStoreError(e, location);
  }
}

/**
 * What a writer's open checks on a schema already at the build's version, without the migration lock (nothing is
 * applied): the recorded migrations match the build's files (STORE_MIGRATION_MISMATCH) and none is newer. One
 * statement, so many writers opening at once do not queue on the lock.
 */
export async function checkCurrentPg(client: PgPoolClient, location: string, dir = PG_MIGRATIONS_DIR): Promise<number> {
  const list = listMigrations(dir);
  try {
    const applied = await client.query<AppliedMigration>(
      'SELECT version, name, checksum FROM schema_version ORDER BY version',
    );
    const v = applied.rows.reduce((max, r) => Math.max(max, r.version), 0);
    if (v > list.length) throw tooNew(location, v, list.length);
    if (v < list.length) return migratePg(client, location, dir);
    checkApplied(applied.rows, list, location);
    return v;
  } catch (e) {
    throw toPgStoreError(e, location);
  }
}

async function applyOne(client: PgPoolClient, location: string, m: Migration, latest: number): Promise<void> {
  const { sql, checksum } = readMigration(m);
  try {
    // BEGIN, the limits, then the lock, in one round trip. Migrations have no statement limit (a big store may take a
    // while): none on the server, none in the client; the wait for another migrator's lock ends as any lock wait.
    await client.query({
      text: [
        'BEGIN',
        'SET LOCAL statement_timeout = 0',
        `SET LOCAL lock_timeout = ${LOCK_TIMEOUT_MS}`,
        `SET LOCAL idle_in_transaction_session_timeout = ${IDLE_IN_TX_MS}`,
        `SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`,
      ].join('; '),
      query_timeout: LOCK_TIMEOUT_MS + 1000,
    } as QueryConfig);
    const now = (await hasVersionTable(client)) ? await versionOf(client) : 0;
    if (now > latest) throw tooNew(location, now, latest);
    if (now >= m.version) {
      await client.query('COMMIT');
      return;
    }
    await client.query(VERSION_TABLE);
    // (`query_timeout` per query is read by the driver, though its types do not declare it.)
    await client.query({ text: sql.toString('utf8'), query_timeout: NO_LIMIT_MS } as QueryConfig);
    await client.query(
      `INSERT INTO schema_version (version, name, checksum, applied_at)
       VALUES ($1, $2, $3, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))`,
      [m.version, m.name, checksum],
    );
    await client.query('COMMIT');
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    if (e instanceof HandoffError || isUnreachable(e) || isPgBusy(e)) throw e;
    throw migrationFailed(m, location, (e as Error).message);
  }
}
