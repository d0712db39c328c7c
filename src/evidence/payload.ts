/**
 * Inline or blob: threshold 4096 bytes compared with `<=`; a file is inline only when its bytes
 * decode as strict UTF-8. A leading BOM is kept as content.
 */
import { createHash } from 'node:crypto';
import { fstatSync, readSync } from 'node:fs';
import { readQuietly } from '../fs-util.js';
import { blobExtension, type BlobSource } from './blob.js';

export const INLINE_MAX_BYTES = 4096;

export type Payload =
  | { storage: 'inline'; text: string; size: number; sha256: string }
  | { storage: 'blob'; source: BlobSource; ext: string };

export const sha256Hex = (bytes: Uint8Array | string): string => createHash('sha256').update(bytes).digest('hex');

/** Strict UTF-8 decode (fatal, BOM kept), or undefined when the bytes are not valid UTF-8. */
export function decodeUtf8Strict(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

export function textPayload(text: string): Payload {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= INLINE_MAX_BYTES)
    return { storage: 'inline', text, size: bytes.length, sha256: sha256Hex(bytes) };
  return { storage: 'blob', source: { kind: 'bytes', bytes }, ext: '.txt' };
}

/**
 * A file already checked by the input reader: an inline candidate (stat size ≤ 4096) is read whole now; a larger
 * file is streamed later by the blob writer. Sizes are those of the bytes actually read.
 */
export function filePayload(path: string, statSize: number, read: (path: string) => Buffer): Payload {
  const ext = blobExtension(path);
  if (statSize > INLINE_MAX_BYTES) return { storage: 'blob', source: { kind: 'file', path }, ext };
  const bytes = read(path);
  const text = bytes.length <= INLINE_MAX_BYTES ? decodeUtf8Strict(bytes) : undefined;
  if (text !== undefined) return { storage: 'inline', text, size: bytes.length, sha256: sha256Hex(bytes) };
  return { storage: 'blob', source: { kind: 'bytes', bytes }, ext };
}

/**
 * Streams a stored file's sha256 and size (no symlink refusal here: the canonical-path rule already resolved it).
 * Opened O_NONBLOCK and re-checked with fstat, so a FIFO swapped in is never read. Undefined when unreadable.
 */
export function digestFile(path: string): { sha256: string; size: number } | undefined {
  return readQuietly(path, (fd) => {
    if (!fstatSync(fd).isFile()) return undefined;
    const hash = createHash('sha256');
    const buf = Buffer.allocUnsafe(64 * 1024);
    let size = 0;
    for (let n = readSync(fd, buf, 0, buf.length, null); n > 0; n = readSync(fd, buf, 0, buf.length, null)) {
      hash.update(buf.subarray(0, n));
      size += n;
    }
    return { sha256: hash.digest('hex'), size };
  });
}
