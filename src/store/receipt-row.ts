/**
 * The receipt row as the store holds it (its columns, declared with the store's other rows, because the store's
 * repositories read and write them), and the row's shape for every layer above.
 */
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
