/**
 * The receipt row as the store holds it, its digest, its JSON exposure and the
 * one-line summary that `evidence run` prints and appends to `key_outputs`.
 */
import { canonicalJson, sha256Hex } from './jcs.js';
import { argvColumn, readStoredJson } from '../store/stored-json.js';

export type Outcome = 'pass' | 'fail' | 'unproven';

/** Every column, valued as stored (TEXT → string, INTEGER → number, NULL → null). */
export interface ReceiptRow {
  receipt_id: string;
  contract_id: string;
  workspace: string;
  argv_json: string;
  shell: number;
  command: string;
  cwd: string;
  started_at: string;
  finished_at: string;
  duration_ms: number;
  exit_code: number | null;
  signal: string | null;
  timed_out: number;
  outcome: Outcome;
  stdout_sha256: string;
  stdout_bytes: number;
  stderr_sha256: string;
  stderr_bytes: number;
  stdout_text: string | null;
  stderr_text: string | null;
  stdout_path: string | null;
  stderr_path: string | null;
  git_head: string | null;
  tree_fingerprint: string | null;
  row_sha256: string;
}

/** The columns in table order: the keys of the canonical JSON and of the JSON exposure. */
export const RECEIPT_COLUMNS = [
  'receipt_id',
  'contract_id',
  'workspace',
  'argv_json',
  'shell',
  'command',
  'cwd',
  'started_at',
  'finished_at',
  'duration_ms',
  'exit_code',
  'signal',
  'timed_out',
  'outcome',
  'stdout_sha256',
  'stdout_bytes',
  'stderr_sha256',
  'stderr_bytes',
  'stdout_text',
  'stderr_text',
  'stdout_path',
  'stderr_path',
  'git_head',
  'tree_fingerprint',
  'row_sha256',
] as const satisfies readonly (keyof ReceiptRow)[];

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
