/**
 * Integrity of a stored receipt (also `evidence show --verify`): the row digest and each stored output's
 * digest are recomputed; a missing blob fails. One check for every caller (finalize, the stop gate, `evidence show
 * --verify`) and both stores: outputs kept in the store are read back through it; output files are read only when
 * they lie below the evidence root, whatever the row says.
 */
import { closeSync, constants, openSync, readSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { confinedPath } from '../evidence/canonical-path.js';
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
  /** The outputs (`stdout`, `stderr`) whose file path leads outside the evidence root: never read, and failed. */
  escaped: string[];
}

export interface IntegrityContext {
  /** `<data root>/evidence`: the only place an output file is read from. */
  evidenceRoot: string;
}

/** sha256 hex of a file, or undefined when it cannot be read (a missing blob). */
export function fileSha256(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
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

type Output = { ok: boolean; escaped: boolean };

async function outputOf(
  reads: Pick<StoreReads, 'blobs'> | null,
  text: string | null,
  path: string | null,
  sha: string,
  ctx: IntegrityContext,
): Promise<Output> {
  if (text !== null) return { ok: sha256Hex(Buffer.from(text, 'utf8')) === sha, escaped: false };
  if (path === null) return { ok: false, escaped: false };
  // A store blob reference, or (a receipt moved by `store copy` onto a store that keeps blobs) the store blob of the
  // recorded digest; the path stays as recorded (row_sha256 covers it). Without a store that keeps blobs a blob
  // reference counts as missing.
  const blobs = reads?.blobs;
  const storeSha = blobRefSha(path) ?? (blobs !== undefined ? sha : undefined);
  if (storeSha !== undefined) {
    const bytes = blobs === undefined ? undefined : await blobs.getBlob(storeSha);
    return { ok: bytes !== undefined && sha256Hex(bytes) === sha, escaped: false };
  }
  const where = confinedPath(path, ctx.evidenceRoot);
  if (where.kind === 'escape') return { ok: false, escaped: true };
  return { ok: where.kind === 'inside' && fileSha256(where.real) === sha, escaped: false };
}

/** The integrity report of one receipt row; `reads` null: no store to read blobs from (they count as missing). */
export async function verifyReceiptIn(
  reads: Pick<StoreReads, 'blobs'> | null,
  row: ReceiptRow,
  ctx: IntegrityContext,
): Promise<IntegrityReport> {
  const rowOk = computeRowSha256(row) === row.row_sha256;
  const stdout = await outputOf(reads, row.stdout_text, row.stdout_path, row.stdout_sha256, ctx);
  const stderr = await outputOf(reads, row.stderr_text, row.stderr_path, row.stderr_sha256, ctx);
  const failures: string[] = [];
  if (!rowOk) failures.push('row_sha256');
  if (!stdout.ok) failures.push('stdout');
  if (!stderr.ok) failures.push('stderr');
  const escaped = [...(stdout.escaped ? ['stdout'] : []), ...(stderr.escaped ? ['stderr'] : [])];
  return { ok: failures.length === 0, rowOk, stdoutOk: stdout.ok, stderrOk: stderr.ok, failures, escaped };
}
