/**
 * Output shapes of the receipt verbs: the recorded line, the append failure object
 * (`DRAFT_APPEND_FAILED`, exit 4, receipt kept) and the rejection lines of a refused append.
 */
import type { Rendered } from '../render/result.js';
import { EXIT } from '../errors.js';
import type { AppendOutcome } from './append.js';
import { receiptJson, receiptSummary, type ReceiptRow } from './row.js';

type Failed = Extract<AppendOutcome, { kind: 'failed' }>;

/** Human mode, after the child's output: `Receipt <id> recorded: exit=<n> outcome=<o> <duration>`. */
export const recordedLine = (row: ReceiptRow): string => {
  const [, ...rest] = receiptSummary(row).split(' ');
  return `Receipt ${row.receipt_id} recorded: ${rest.join(' ')}`;
};

export function appendFailedResult(row: ReceiptRow, failed: Failed, extra: Record<string, unknown> = {}): Rendered {
  const error = `receipt ${row.receipt_id} was recorded, but appending it to draft ${failed.draftId} failed (${failed.cause}): ${failed.message}`;
  const verdict = failed.verdict;
  const lines = [recordedLine(row), `Error: ${error}`];
  if (verdict !== undefined) lines.push(...verdict.errors.map((e) => `  ${e.code} [${e.path}]: ${e.detail}`));
  return {
    exit: EXIT.STORE,
    json: {
      status: 'error',
      code: 'DRAFT_APPEND_FAILED',
      error,
      ...extra,
      receipt_recorded: true,
      appended: false,
      receipt: receiptJson(row),
      cause: failed.cause,
      ...(verdict === undefined
        ? {}
        : {
            codes: [...new Set(verdict.codes)],
            errors: verdict.errors.map((e) => ({ code: e.code, path: e.path, detail: e.detail })),
          }),
    },
    errText: lines.join('\n'),
  };
}
