/**
 * The statements of the PostgreSQL store's own: blobs (evidence and receipt output bytes, kept in the store only on
 * PostgreSQL). PostgreSQL runs
 * writers side by side (READ COMMITTED), so the read-then-write steps lock the row they depend on (`FOR UPDATE`).
 */
import { createHash } from 'node:crypto';
import type { Run } from './pg-driver.js';
import { blobRef, type BlobRef } from './store.js';

/** Stores `bytes` under their sha256; a blob already stored is kept as it is (content-addressed, deduplicated). */
export async function putBlob(run: Run, bytes: Buffer): Promise<BlobRef> {
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  await run('INSERT INTO blobs (sha256, bytes, size) VALUES ($1, $2, $3) ON CONFLICT (sha256) DO NOTHING', [
    sha256,
    bytes,
    bytes.length,
  ]);
  return { sha256, size: bytes.length, ref: blobRef(sha256) };
}

export const getBlob = async (run: Run, sha256: string): Promise<Buffer | undefined> =>
  (await run<{ bytes: Buffer }>('SELECT bytes FROM blobs WHERE sha256 = $1', [sha256])).rows[0]?.bytes;

export async function blobSizes(run: Run, sha256s: readonly string[]): Promise<Map<string, number>> {
  if (sha256s.length === 0) return new Map();
  const { rows } = await run<{ sha256: string; size: number }>(
    'SELECT sha256, size FROM blobs WHERE sha256 = ANY($1::text[])',
    [[...new Set(sha256s)]],
  );
  return new Map(rows.map((r) => [r.sha256, Number(r.size)]));
}
