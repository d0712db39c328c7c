/**
 * The receipt row (declared in src/store/receipt-row.ts), its digest, its JSON exposure and the
 * one-line summary that `evidence run` prints and appends to `key_outputs`.
 */
import { canonicalJson, sha256Hex } from './jcs.js';
import { argvColumn, readStoredJson } from '../store/stored-json.js';
import { RECEIPT_COLUMNS, type Outcome, type ReceiptRow } from '../store/receipt-row.js';

export type { Outcome, ReceiptRow } from '../store/receipt-row.js';

/** sha256 of the JCS text of every column except `row_sha256`. */
export function computeRowSha256(row: Omit<ReceiptRow, 'row_sha256'> | ReceiptRow): string {
  const obj: Record<string, unknown> = {};
  for (const col of RECEIPT_COLUMNS) {
    if (col === 'row_sha256') continue;
    obj[col] = (row as unknown as Record<string, unknown>)[col] ?? null;
  }
  return sha256Hex(canonicalJson(obj));
}

/** Outcome is fixed by the exit status alone: 0 pass, 1 fail, anything else unproven. */
export const outcomeOf = (exitCode: number | null): Outcome =>
  exitCode === 0 ? 'pass' : exitCode === 1 ? 'fail' : 'unproven';

/** The JSON exposure: `argv_json` as parsed `argv`, `shell`/`timed_out` as booleans. */
export function receiptJson(row: ReceiptRow): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const col of RECEIPT_COLUMNS) {
    if (col === 'argv_json') out.argv = readStoredJson(row.argv_json, argvColumn) ?? row.argv_json;
    else if (col === 'shell' || col === 'timed_out') out[col] = row[col] === 1;
    else out[col] = row[col];
  }
  return out;
}

/** `1234ms` below ten seconds, else seconds with one decimal (`12.3s`). */
export function formatDuration(ms: number): string {
  return ms < 10_000 ? `${ms}ms` : `${(ms / 1000).toFixed(1)}s`;
}

/**
 * How the child ended, as the `exit=` token of the summary: the exit code, or `timeout`, `signal:<NAME>`,
 * `not-started` when there is none.
 */
export function exitToken(row: Pick<ReceiptRow, 'exit_code' | 'signal' | 'timed_out'>): string {
  if (row.exit_code !== null) return String(row.exit_code);
  if (row.timed_out === 1) return 'timeout';
  if (row.signal !== null) return `signal:${row.signal}`;
  return 'not-started';
}

/** `<receipt_id> exit=<n> outcome=<o> <duration>`. */
export const receiptSummary = (row: ReceiptRow): string =>
  `${row.receipt_id} exit=${exitToken(row)} outcome=${row.outcome} ${formatDuration(row.duration_ms)}`;
