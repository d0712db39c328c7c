/**
 * Blobs kept in the store: on PostgreSQL an evidence file or a receipt output is stored
 * content-addressed in the store's blob table and a row references it as `blob:sha256:<hex>`; on SQLite blobs stay
 * files under the data root (blob.ts). These helpers serve both: they read a payload by whatever reference a row holds.
 */
import { readRegularFile } from '../input/files.js';
import { lstatSync } from 'node:fs';
import { blobRefSha, type BlobRef, type BlobStore, type StoreReads, type StoreTx } from '../store/store.js';
import type { BlobSource } from './blob.js';
import { confinedPath } from './canonical-path.js';
import { digestFile, sha256Hex } from './payload.js';

/** The bytes of a payload source (a file is read whole, opened non-blocking and checked to be a regular file). */
export function sourceBytes(source: BlobSource): Buffer {
  return source.kind === 'bytes' ? Buffer.from(source.bytes) : readRegularFile(source.path);
}

/** Stores the bytes in the store inside the caller's transaction; refuses when they are not what was hashed before. */
export async function putVerifiedBlob(
  blobs: BlobStore,
  t: StoreTx,
  bytes: Buffer,
  expected?: { sha256: string; size: number },
): Promise<BlobRef> {
  const ref = await blobs.putBlob(t, bytes);
  if (expected !== undefined && (ref.sha256 !== expected.sha256 || ref.size !== expected.size)) {
    throw new Error(`the payload changed before it was stored (sha256 ${ref.sha256}, expected ${expected.sha256})`);
  }
  return ref;
}

/** What a row's reference leads to: a present payload, none, or a file path outside the evidence root (never read). */
export type StoredPayload = { kind: 'present' } | { kind: 'missing' } | { kind: 'escape' };

/**
 * Whether a row's reference resolves: a store blob that the store holds, or a regular file below the evidence root
 * (a path outside it is never touched, whatever the row says).
 */
export async function payloadState(
  reads: StoreReads | null,
  ref: string,
  evidenceRoot: string,
): Promise<StoredPayload> {
  const sha = blobRefSha(ref);
  if (sha === undefined) {
    const where = confinedPath(ref, evidenceRoot);
    if (where.kind !== 'inside') return { kind: where.kind };
    try {
      return lstatSync(where.real).isFile() ? { kind: 'present' } : { kind: 'missing' };
    } catch {
      return { kind: 'missing' };
    }
  }
  // No store, or one that keeps no blobs (SQLite): a blob reference leads nowhere.
  const blobs = reads?.blobs;
  if (blobs === undefined) return { kind: 'missing' };
  return (await blobs.blobSizes([sha])).has(sha) ? { kind: 'present' } : { kind: 'missing' };
}

/**
 * The sha256 of the payload a row references: `blob:sha256:<hex>` read back from the store (and rehashed, so a
 * damaged store blob fails), else a file below the evidence root. Undefined when it is missing or outside the root.
 */
export async function storedPayloadSha(
  reads: StoreReads | null,
  ref: string,
  evidenceRoot: string,
): Promise<string | undefined> {
  const sha = blobRefSha(ref);
  if (sha === undefined) {
    const where = confinedPath(ref, evidenceRoot);
    return where.kind === 'inside' ? digestFile(where.real)?.sha256 : undefined;
  }
  const blobs = reads?.blobs;
  if (blobs === undefined) return undefined;
  const bytes = await blobs.getBlob(sha);
  return bytes === undefined ? undefined : sha256Hex(bytes);
}
