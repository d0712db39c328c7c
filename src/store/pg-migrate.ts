/**
 * The PostgreSQL migration runner (the SQLite one is migrate.ts). The files are
 * `migrations/postgres/NNNN_name.sql`, numbered as the SQLite ones, append-only and checksummed. The store is the
 * connection's current schema (the first existing schema of its search_path). Concurrent migrators serialize on a
 * session advisory lock; each file is applied in its own transaction, and the version is re-read under the lock.
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
import { NO_LIMIT_MS, type PgPoolClient } from './pg-driver.js';
import { isUnreachable, toPgStoreError } from './pg-errors.js';
import { storeUnreadable } from './store-errors.js';

export const PG_MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations/postgres/', import.meta.url));

/** pg_advisory_lock key of the migration runner: ASCII "handmigr" (one bigint key; contract locks use two int4 keys). */
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

async function hasVersionTable(client: PgPoolClient): Promise<boolean> {
  const { rows } = await client.query<{ t: string | null }>(
    "SELECT to_regclass(format('%I.schema_version', current_schema())) AS t",
  );
  return rows[0].t !== null;
}

/**
 * Brings the current schema up to the latest version on PostgreSQL: under the
 * migration lock, refuses a newer schema (STORE_SCHEMA_TOO_NEW) and edited or missing files
 * (STORE_MIGRATION_MISMATCH), then applies each pending file in its own transaction (STORE_MIGRATION_FAILED on an
 * error: that file leaves no trace, earlier ones stay). Returns the version reached.
 */
export async function migratePg(client: PgPoolClient, location: string, dir = PG_MIGRATIONS_DIR): Promise<number> {
  const list = listMigrations(dir);
  const latest = list.length;
  try {
    await client.query('SELECT pg_advisory_lock($1::bigint)', [MIGRATION_LOCK]);
  } catch (e) {
    throw toPgStoreError(e, location);
  }
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
  } finally {
    await client.query('SELECT pg_advisory_unlock($1::bigint)', [MIGRATION_LOCK]).catch(() => undefined);
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
  await client.query('BEGIN');
  try {
    const now = (await hasVersionTable(client)) ? await versionOf(client) : 0;
    if (now > latest) throw tooNew(location, now, latest);
    if (now >= m.version) {
      await client.query('COMMIT');
      return;
    }
    // Migrations have no time limit (a big store may take a while): none on the server, none in the client.
    await client.query('SET LOCAL statement_timeout = 0');
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
    if (e instanceof HandoffError || isUnreachable(e)) throw e;
    throw migrationFailed(m, location, (e as Error).message);
  }
}
