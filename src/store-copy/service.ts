/**
 * `handoff store copy --to <url>`: moves the SQLite store of the current data root into an
 * empty PostgreSQL store. Every table is copied verbatim (ids preserved, identity sequences reset after), receipts
 * unchanged (their row_sha256 still verifies), and every blob under the data root becomes a store blob:
 *
 * - evidence.artifact_path: a file path is rewritten to `blob:sha256:<hex>` (the row's own sha256, checked against
 *   the file's bytes); the only column rewritten.
 * - receipts.stdout_path / stderr_path: kept verbatim (row_sha256 covers them); the file's bytes are stored as the blob
 *   of the row's stdout_sha256 / stderr_sha256, which is where a PostgreSQL store verifies an output from.
 *
 * A blob that is missing or no longer matches its row stops the copy before anything is written
 * (STORE_COPY_FAILED). The target is checked empty first (STORE_COPY_TARGET_NOT_EMPTY, nothing written), migrated,
 * then filled in one transaction that reads everything back and compares counts and digests before it commits.
 */
import { HandoffError, usage } from '../errors.js';
import type { Env } from '../paths.js';
import { digestFile } from '../evidence/payload.js';
import { readQuietly } from '../fs-util.js';
import { fstatSync, readSync } from 'node:fs';
import type { Row } from '../store/copy-tables.js';
import { blobRef, blobRefSha } from '../store/store.js';

export interface CopyResult {
  from: string;
  to: string;
  version: number;
  tables: { name: string; rows: number; sha256: string }[];
  blobs: { count: number; bytes: number };
  rewritten: { evidence_artifact_path: number };
  verified: true;
}

function readAll(path: string): Buffer | undefined {
  return readQuietly(path, (fd) => {
    if (!fstatSync(fd).isFile()) return undefined;
    const chunks: Buffer[] = [];
    const buf = Buffer.allocUnsafe(64 * 1024);
    for (let n = readSync(fd, buf, 0, buf.length, null); n > 0; n = readSync(fd, buf, 0, buf.length, null))
      chunks.push(Buffer.from(buf.subarray(0, n)));
    return Buffer.concat(chunks);
  });
}

/** The bytes of a file blob a row references, checked against the row's digest; STORE_COPY_FAILED otherwise. */
async function blobOf(path: string, sha256: string, what: string): Promise<Buffer> {
  const { copyFailed } = await import('../store/copy-pg.js');
  if (digestFile(path)?.sha256 !== sha256) {
    throw copyFailed(
      `${what} references ${path}, which is ${readAll(path) === undefined ? 'missing or unreadable' : `altered (its sha256 is not ${sha256})`}`,
    );
  }
  const bytes = readAll(path);
  if (bytes === undefined) throw copyFailed(`${what} references ${path}, which is missing or unreadable`);
  return bytes;
}

export async function copyStore(env: Env, cwd: string, to: string): Promise<CopyResult> {
  if (!/^postgres(ql)?:\/\//i.test(to)) throw usage('--to must be a postgres:// or postgresql:// URL');
  const { openReader, closeDb, dbFileOf } = await import('../store/db.js');
  const { currentVersion, latestVersion } = await import('../store/migrate.js');
  const { dumpSqlite } = await import('../store/copy-sqlite.js');
  const { redactUrl } = await import('../store/pg-driver.js');
  const { precheckTarget, copyIntoPg } = await import('../store/copy-pg.js');
  const { openPostgres } = await import('../store/pg-store.js');
  const { storeNeedsMigration } = await import('../store/store-errors.js');
  const location = redactUrl(to);

  const db = openReader({ ...env, HANDOFF_STORE_URL: undefined }, cwd);
  if (db === null) {
    const { dbPath } = await import('../paths.js');
    throw new HandoffError(
      'NO_STORE',
      `no SQLite store at ${dbPath(env, cwd)}: there is nothing to copy`,
      {},
      'Run handoff from the data root whose store you mean (HANDOFF_HOME / HANDOFF_DB).',
    );
  }
  let from: string;
  let dump;
  try {
    from = dbFileOf(db);
    const version = currentVersion(db);
    if (version !== latestVersion())
      throw storeNeedsMigration(
        from,
        version,
        latestVersion(),
        'store copy reads the latest schema; run a writing verb on this data root first',
      );
    dump = dumpSqlite(db, version);
  } finally {
    closeDb(db);
  }

  // The blobs, read and checked before the target is touched.
  const blobs = new Map<string, Buffer>();
  let rewritten = 0;
  const evidence = dump.tables.get('evidence');
  if (evidence !== undefined) {
    evidence.rows = await Promise.all(
      evidence.rows.map(async (r: Row) => {
        const path = r.artifact_path as string | null;
        if (path === null || blobRefSha(path) !== undefined) return r;
        const sha = r.sha256 as string;
        blobs.set(sha, await blobOf(path, sha, `evidence ${String(r.id)}`));
        rewritten++;
        return { ...r, artifact_path: blobRef(sha) };
      }),
    );
  }
  for (const r of dump.tables.get('receipts')?.rows ?? []) {
    for (const stream of ['stdout', 'stderr'] as const) {
      const path = r[`${stream}_path`] as string | null;
      if (path === null) continue;
      const sha = r[`${stream}_sha256`] as string;
      if (!blobs.has(sha)) blobs.set(sha, await blobOf(path, sha, `receipt ${String(r.receipt_id)} (${stream})`));
    }
  }

  await precheckTarget(to, location);
  const store = await openPostgres(to, 'writer', { create: true, timeoutMs: null });
  const targetVersion = store?.version ?? 0;
  await store?.close();
  if (targetVersion !== dump.version) {
    throw new HandoffError(
      'INTERNAL',
      `the PostgreSQL schema is at version ${targetVersion}, the SQLite store at ${dump.version}`,
    );
  }
  const report = await copyIntoPg(to, location, { tables: dump.tables, blobs });
  return {
    from,
    to: location,
    version: dump.version,
    tables: report.tables,
    blobs: report.blobs,
    rewritten: { evidence_artifact_path: rewritten },
    verified: true,
  };
}
