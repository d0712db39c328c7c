/** Shared fixtures of the receipt unit tests. */
import { sha256Hex } from '../../src/receipts/jcs.js';
import { computeRowSha256, type ReceiptRow } from '../../src/receipts/row.js';

/** A well-formed receipt row (pass, inline output); `over` replaces columns and row_sha256 is recomputed. */
export function sampleRow(over: Partial<ReceiptRow> = {}): ReceiptRow {
  const base: Omit<ReceiptRow, 'row_sha256'> = {
    receipt_id: 'R-0123456789abcdef',
    contract_id: 'a0123456789abcdef.0123456789ab',
    workspace: 'ws',
    argv_json: '["npm","test"]',
    shell: 0,
    command: 'npm test',
    cwd: '/tmp',
    started_at: '2025-01-01T00:00:00.000Z',
    finished_at: '2025-01-01T00:00:01.000Z',
    duration_ms: 1000,
    exit_code: 0,
    signal: null,
    timed_out: 0,
    outcome: 'pass',
    stdout_sha256: sha256Hex('ok\n'),
    stdout_bytes: 3,
    stderr_sha256: sha256Hex(''),
    stderr_bytes: 0,
    stdout_text: 'ok\n',
    stderr_text: '',
    stdout_path: null,
    stderr_path: null,
    git_head: null,
    tree_fingerprint: null,
    ...over,
  };
  return { ...base, row_sha256: computeRowSha256(base), ...(over.row_sha256 ? { row_sha256: over.row_sha256 } : {}) };
}
