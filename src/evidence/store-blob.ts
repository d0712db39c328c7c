/**
 * Blobs kept in the store: on PostgreSQL an evidence file or a receipt output is stored
 * content-addressed in the store's blob table and a row references it as `blob:sha256:<hex>`; on SQLite blobs stay
 * files under the data root (blob.ts). These helpers serve both: they read a payload by whatever reference a row holds.
 */
import { readRegularFile } from '../cli/input.js';
import { lstatSync } from 'node:fs';
import { blobRefSha, type BlobRef, type StoreReads, type StoreTx } from '../store/store.js';
import type { BlobSource } from './blob.js';
import { digestFile, sha256Hex } from './payload.js';

/** The bytes of a payload source (a file is read whole, opened non-blocking and checked to be a regular file). */
export function sourceBytes(source: BlobSource): Buffer {
  return source.kind === 'bytes' ? Buffer.from(source.bytes) : readRegularFile(source.path);
}

/** Stores the bytes in the store inside the caller's transaction; refuses when they are not what was hashed before. */
export async function putVerifiedBlob(t: StoreTx, bytes: Buffer, expected?: { sha256: string; size: number }): Promise<BlobRef> {
  const ref = await t.putBlob(bytes);
  if (expected !== undefined && (ref.sha256 !== expected.sha256 || ref.size !== expected.size)) {
    throw new Error(`the payload changed before it was stored (sha256 ${ref.sha256}, expected ${expected.sha256})`);
  }
  return ref;
}

/**
 * The sha256 of the payload a row references: `blob:sha256:<hex>` read back from the store (and rehashed, so a
 * damaged store blob fails), else a file under the data root. Undefined when it is missing.
 */
export async function storedPayloadSha(reads: StoreReads | null, ref: string): Promise<string | undefined> {
  const sha = blobRefSha(ref);
  if (sha === undefined) return digestFile(ref)?.sha256;
  if (reads === null) return undefined;
  const bytes = await reads.getBlob(sha);
  return bytes === undefined ? undefined : sha256Hex(bytes);
}

/** Whether a row's reference resolves: a store blob that the store holds, or a local regular file. */
export async function payloadExists(reads: StoreReads | null, ref: string): Promise<boolean> {
  const sha = blobRefSha(ref);
  if (sha === undefined) {
    try {
      return lstatSync(ref).isFile();
    } catch {
      return false;
    }
  }
  if (reads === null) return false;
  return (await reads.blobSizes([sha])).has(sha);
}
