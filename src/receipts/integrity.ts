/**
 * Integrity of a stored receipt (receipts.md §2 check 3, §5 `--verify`): the row digest and each stored output's
 * digest are recomputed; a missing blob fails.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { computeRowSha256, type ReceiptRow } from './row.js';
import { sha256Hex } from './jcs.js';

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

export function verifyReceipt(row: ReceiptRow): IntegrityReport {
  const rowOk = computeRowSha256(row) === row.row_sha256;
  const stdoutOk = streamOk(row.stdout_text, row.stdout_path, row.stdout_sha256);
  const stderrOk = streamOk(row.stderr_text, row.stderr_path, row.stderr_sha256);
  const failures: string[] = [];
  if (!rowOk) failures.push('row_sha256');
  if (!stdoutOk) failures.push('stdout');
  if (!stderrOk) failures.push('stderr');
  return { ok: failures.length === 0, rowOk, stdoutOk, stderrOk, failures };
}
