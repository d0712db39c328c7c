/**
 * The draft append of `evidence run` and the draft update of `contract verify`: one
 * write through the same validate-on-write pipeline as `add` (adoption of a dispatched row, sanitization, full
 * verdict, canonicalization, atomic save, mirror), with the lock taken only now, after the child exited. It never
 * opens a continuation: the pipeline runs with `onClosedTip: 'skip'`, so when the tip closed meanwhile (or was
 * continued) nothing is applied or written and the append is reported as skipped.
 */
import { writeDraft } from '../drafts/write.js';
import type { JsonObject } from '../envelope/vocabulary.js';
import { isHandoffError } from '../errors.js';
import type { Env } from '../paths.js';
import { adoptedNotice, canonicalizedNotice, mirrorSkippedNotice } from '../render/notices.js';
import type { ValidationResult } from '../validator/index.js';

export type AppendOutcome =
  | { kind: 'appended'; draftId: string }
  | { kind: 'skipped'; contractId: string }
  | { kind: 'failed'; draftId: string; cause: string; message: string; verdict?: ValidationResult };

export interface AppendRequest {
  env: Env;
  cwd: string;
  /** The live tip found at step 2: the receipt's contract. */
  contractId: string;
  /** The change on a copy of the base (throws its refusal, e.g. NOT_A_LIST). */
  apply(base: JsonObject, draftId: string): JsonObject;
  notice: (line: string) => void;
}

export async function appendToDraft(req: AppendRequest): Promise<AppendOutcome> {
  try {
    const outcome = await writeDraft({
      env: req.env,
      cwd: req.cwd,
      addressing: { draftId: req.contractId },
      notice: req.notice,
      apply: (base, draftId) => req.apply(base, draftId),
      onClosedTip: 'skip',
    });
    if (outcome.kind === 'closed_tip') return { kind: 'skipped', contractId: req.contractId };
    if (outcome.kind === 'rejected') {
      const message = `the full verdict refused the write (${outcome.verdict.codes.join(', ')})`;
      return { kind: 'failed', draftId: outcome.draftId, cause: 'rejected', message, verdict: outcome.verdict };
    }
    if (outcome.adopted) req.notice(adoptedNotice(outcome.draftId));
    for (const c of outcome.canonicalized) req.notice(canonicalizedNotice(c));
    const skipped = mirrorSkippedNotice(outcome.draftId, outcome.mirror.outcome, outcome.mirror.message);
    if (skipped !== undefined) req.notice(skipped);
    return { kind: 'appended', draftId: outcome.draftId };
  } catch (e) {
    const cause = isHandoffError(e) ? e.code : 'INTERNAL';
    const message = (e as Error)?.message ?? String(e);
    return { kind: 'failed', draftId: req.contractId, cause, message: message.replace(/\s*\n\s*/g, ' ') };
  }
}

export const notAppendedNotice = (receiptId: string, contractId: string): string =>
  `[RECEIPT NOT APPENDED: contract closed] ${receiptId} ${contractId}`;
