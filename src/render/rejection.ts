/**
 * The validation rejection, in both shapes (cli-contract-drafts.md §4.2, §4.3), reusable by every verb that judges
 * an envelope (set/add/fill, validate, finalize, ...):
 *
 *   rejectionJson(subject, verdict, extra?)   {"status":"rejected", draft_id|source, codes, errors, repair, ...extra}
 *   rejectionBlock(header, verdict)           "Rejected: <header>", one "  CODE [path]: detail" line per error,
 *                                             a blank line, the repair text (stderr, human mode)
 *   validationRejection({...})                the CommandResult (exit 1) carrying both
 *   WRITE_REJECTED(id), SUBJECT_REJECTED(s)   the two standard headers
 */
import type { CommandResult } from '../cli/command.js';
import { EXIT } from '../errors.js';

/** The parts of a verdict the renderers need (the validator's ValidationResult fits). */
export interface Verdict {
  codes: readonly string[];
  errors: readonly { code: string; path: string; detail: string }[];
  repair: string;
}

/** Whom the rejection is about: a draft id, or a file source (a path, or `-` for stdin). */
export type RejectionSubject = { draft_id: string } | { source: string };

export function rejectionJson(subject: RejectionSubject, verdict: Verdict, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    status: 'rejected',
    ...subject,
    codes: [...new Set(verdict.codes)],
    errors: verdict.errors.map((e) => ({ code: e.code, path: e.path, detail: e.detail })),
    repair: verdict.repair,
    ...extra,
  };
}

export function rejectionBlock(header: string, verdict: Pick<Verdict, 'errors'> & { repair?: string }): string {
  const lines = [`Rejected: ${header}`, ...verdict.errors.map((e) => `  ${e.code} [${e.path}]: ${e.detail}`)];
  if (verdict.repair !== undefined && verdict.repair !== '') lines.push('', verdict.repair);
  return `${lines.join('\n')}\n`;
}

export const WRITE_REJECTED = (draftId: string): string =>
  `the write to draft ${draftId} failed validation; nothing was written.`;

export const SUBJECT_REJECTED = (subject: string): string => `${subject} failed validation.`;

export function validationRejection(opts: {
  subject: RejectionSubject;
  verdict: Verdict;
  header: string;
  extra?: Record<string, unknown>;
}): CommandResult {
  return {
    exit: EXIT.REJECTED,
    json: rejectionJson(opts.subject, opts.verdict, opts.extra),
    errText: rejectionBlock(opts.header, opts.verdict),
  };
}
