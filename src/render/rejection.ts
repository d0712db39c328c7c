/**
 * The validation rejection, in both shapes, reusable by every verb that judges
 * an envelope (set/add/fill/patch, validate, finalize, ...):
 *
 *   rejectionJson(subject, verdict, extra?, explain?)   {"status":"rejected", draft_id|source, codes, errors,
 *                                             repair (only when explained), ...extra}
 *   rejectionBlock(header, verdict)           "Rejected: <header>", one "  CODE [path]: detail" line per error,
 *                                             a blank line, the repair text (stderr, human mode)
 *   shortRejectionBlock(header, verdict)      the header, the error lines and one closing line naming --explain
 *   validationRejection({..., explain})       the Rendered result (exit 1) carrying both
 *   WRITE_REJECTED(id), SUBJECT_REJECTED(s)   the two standard headers
 *
 * Short by default: the write verbs and validate print the repair text (about 2.8 KB of
 * template and rules) only with --explain, since an agent pays for every byte of every rejection in its context.
 * The library result and the gate's block reason keep it whole.
 */
import type { Rendered } from './result.js';
import { EXIT } from '../errors.js';

/** The parts of a verdict the renderers need (the validator's ValidationResult fits). */
export interface Verdict {
  codes: readonly string[];
  errors: readonly { code: string; path: string; detail: string }[];
  repair: string;
}

/** Whom the rejection is about: a draft id, or a file source (a path, or `-` for stdin). */
export type RejectionSubject = { draft_id: string } | { source: string };

export function rejectionJson(
  subject: RejectionSubject,
  verdict: Verdict,
  extra: Record<string, unknown> = {},
  explain = true,
): Record<string, unknown> {
  return {
    status: 'rejected',
    ...subject,
    codes: [...new Set(verdict.codes)],
    errors: verdict.errors.map((e) => ({ code: e.code, path: e.path, detail: e.detail })),
    ...(explain ? { repair: verdict.repair } : {}),
    ...extra,
  };
}

const errorLines = (verdict: Pick<Verdict, 'errors'>): string[] =>
  verdict.errors.map((e) => `  ${e.code} [${e.path}]: ${e.detail}`);

export function rejectionBlock(header: string, verdict: Pick<Verdict, 'errors'> & { repair?: string }): string {
  const lines = [`Rejected: ${header}`, ...errorLines(verdict)];
  if (verdict.repair !== undefined && verdict.repair !== '') lines.push('', verdict.repair);
  return `${lines.join('\n')}\n`;
}

export const EXPLAIN_LINE =
  'Run the same command with --explain for the full repair text (a valid envelope template, the close rules, the order of writes).';

export function shortRejectionBlock(header: string, verdict: Pick<Verdict, 'errors'>): string {
  return `${[`Rejected: ${header}`, ...errorLines(verdict), EXPLAIN_LINE].join('\n')}\n`;
}

export const WRITE_REJECTED = (draftId: string): string =>
  `the write to draft ${draftId} failed validation; nothing was written.`;

export const SUBJECT_REJECTED = (subject: string): string => `${subject} failed validation.`;

export function validationRejection(opts: {
  subject: RejectionSubject;
  verdict: Verdict;
  header: string;
  extra?: Record<string, unknown>;
  /** --explain: the full repair text in both shapes. */
  explain: boolean;
}): Rendered {
  return {
    exit: EXIT.REJECTED,
    json: rejectionJson(opts.subject, opts.verdict, opts.extra, opts.explain),
    errText: opts.explain ? rejectionBlock(opts.header, opts.verdict) : shortRejectionBlock(opts.header, opts.verdict),
  };
}
