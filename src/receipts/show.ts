/**
 * `handoff evidence show R-… [--verify]`, reached through the `evidence show` seam: `id` is the receipt id (already
 * pattern-checked), `verify` the flag. A failed check is RECEIPT_TAMPERED, exit 1
 * (EVIDENCE_PATH_ESCAPE when an output path leads outside the evidence root, which is never read):
 * under --json the object is still printed, as a rejection; in human mode only the `Rejected:` line (stderr).
 */
import { EXIT } from '../errors.js';
import type { Env } from '../paths.js';
import type { Rendered } from '../render/result.js';
import { renderFields } from '../render/table.js';
import { copyableCommand } from './quote.js';
import { readReceipt } from './read.js';
import { receiptJson, type ReceiptRow } from './row.js';

/**
 * Human form: `key: value` lines; outputs stored inline are shown as JSON strings, and the command so that copying it
 * into a shell gives the receipt's argv.
 */
function fields(obj: Record<string, unknown>): string {
  const argv = obj.argv;
  const words = Array.isArray(argv) && argv.every((a) => typeof a === 'string') ? argv : undefined;
  const command = words === undefined ? undefined : copyableCommand(words, obj.shell === true);
  return renderFields(obj, (key) => key.endsWith('_text'), command === undefined ? {} : { command });
}

/**
 * The receipt's freshness now, as finalize judges it: `unknown` for a receipt recorded outside git (no fingerprint),
 * else `stale` when its work tree changed since (src/receipts/fingerprint.ts isStale), else `fresh`.
 */
async function freshnessOf(row: ReceiptRow, env: Env): Promise<'fresh' | 'stale' | 'unknown'> {
  if (row.tree_fingerprint === null) return 'unknown';
  const { isStale } = await import('./fingerprint.js');
  return isStale(row, env) ? 'stale' : 'fresh';
}

export async function showReceipt(env: Env, cwd: string, id: string, verify: boolean): Promise<Rendered> {
  const { row, integrity } = await readReceipt(env, cwd, id, verify);
  const receipt = receiptJson(row);
  const freshness = await freshnessOf(row, env);
  if (integrity === undefined)
    return { json: { status: 'ok', receipt, freshness }, text: fields({ ...receipt, freshness }) };
  if (integrity.ok)
    return {
      json: { status: 'ok', receipt, freshness, verified: true },
      text: fields({ ...receipt, freshness, verified: true }),
    };
  const escaped = integrity.escaped.length > 0;
  const error = escaped
    ? `receipt ${row.receipt_id} names its ${integrity.escaped.join(' and ')} at a path outside the evidence root; it was not read`
    : tamperedMessage(row, integrity.failures);
  // Human mode prints nothing on stdout for a failure; --json keeps the whole object.
  return {
    exit: EXIT.REJECTED,
    json: {
      status: 'rejected',
      code: escaped ? 'EVIDENCE_PATH_ESCAPE' : 'RECEIPT_TAMPERED',
      error,
      receipt,
      verified: false,
    },
    errText: `Rejected: ${error}`,
  };
}

function tamperedMessage(row: ReceiptRow, failures: string[]): string {
  const parts = failures.map((f) =>
    f === 'row_sha256'
      ? 'the row no longer matches row_sha256'
      : `the ${f} ${row[`${f as 'stdout' | 'stderr'}_path`] !== null ? 'blob is missing or altered' : 'text no longer matches its sha256'}`,
  );
  return `receipt ${row.receipt_id} failed verification: ${parts.join('; ')}`;
}
