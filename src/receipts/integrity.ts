/**
 * Integrity of a stored receipt (also `evidence show --verify`): the row digest and each stored output's
 * digest are recomputed; a missing blob fails.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { computeRowSha256, type ReceiptRow } from './row.js';
import { sha256Hex } from './jcs.js';
import { blobRefSha, type StoreReads } from '../store/store.js';

export interface IntegrityReport {
  ok: boolean;
  rowOk: boolean;
  stdoutOk: boolean;
  stderrOk: boolean;
  /** What failed, for a detail line: `row_sha256`, `stdout`, `stderr` (blob missing or altered). */
  failures: string[];
}

/** sha256 hex of a file, or undefined when it cannot be read (a missing blob). */
export function fileSha256(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    const h = createHash('sha256');
    const buf = Buffer.allocUnsafe(1024 * 1024);
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      h.update(buf.subarray(0, n));
    }
    return h.digest('hex');
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

function streamOk(text: string | null, path: string | null, sha: string): boolean {
  if (text !== null) return sha256Hex(Buffer.from(text, 'utf8')) === sha;
  if (path !== null) return fileSha256(path) === sha;
  return false;
}

export const verifyReceipt = (row: ReceiptRow): IntegrityReport => integrityOf(row, streamOk);

/** The report of a row whose outputs `outputOk` judges (text, path, recorded sha256). */
function integrityOf(row: ReceiptRow, outputOk: (text: string | null, path: string | null, sha: string) => boolean): IntegrityReport {
  const rowOk = computeRowSha256(row) === row.row_sha256;
  const stdoutOk = outputOk(row.stdout_text, row.stdout_path, row.stdout_sha256);
  const stderrOk = outputOk(row.stderr_text, row.stderr_path, row.stderr_sha256);
  const failures: string[] = [];
  if (!rowOk) failures.push('row_sha256');
  if (!stdoutOk) failures.push('stdout');
  if (!stderrOk) failures.push('stderr');
  return { ok: failures.length === 0, rowOk, stdoutOk, stderrOk, failures };
}

/** The sha256 of each store blob (`blob:sha256:` reference) the row's outputs name, rehashed from the store's bytes. */
async function storeBlobShas(reads: StoreReads | null, row: ReceiptRow, blobsInStore: boolean): Promise<Map<string, string | undefined>> {
  const out = new Map<string, string | undefined>();
  for (const [path, recorded] of [
    [row.stdout_path, row.stdout_sha256],
    [row.stderr_path, row.stderr_sha256],
  ] as const) {
    // A file path on a store that keeps blobs (a receipt moved by `store copy`): its output is
    // the store blob of its recorded digest; the path stays as recorded (row_sha256 covers it).
    const sha = path === null ? undefined : (blobRefSha(path) ?? (blobsInStore ? recorded : undefined));
    if (path === null || sha === undefined || out.has(path)) continue;
    const bytes = reads === null ? undefined : await reads.getBlob(sha);
    out.set(path, bytes === undefined ? undefined : sha256Hex(bytes));
  }
  return out;
}

/**
 * verifyReceipt for a row whose outputs may be store blobs (PostgreSQL): they are read back from
 * the store, so any host can verify a receipt; file outputs are read from the data root as before. `blobsInStore`
 * (the store is PostgreSQL): a file path's output is read from the store blob of the row's recorded digest.
 */
export async function verifyReceiptIn(reads: StoreReads | null, row: ReceiptRow, blobsInStore = false): Promise<IntegrityReport> {
  const shas = await storeBlobShas(reads, row, blobsInStore);
  return integrityOf(row, (text, path, sha) => (path !== null && shas.has(path) ? shas.get(path) === sha : streamOk(text, path, sha)));
}
