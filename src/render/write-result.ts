/**
 * Output of `set`, `add` and `fill`: the success object and line, the notices in their
 * fixed order ([ADOPTED], [CONTINUATION opened], [CANONICALIZED], [MIRROR SKIPPED]; [SANITIZED] was printed while
 * loading), or the validation rejection aimed at the chain tip. It renders only: the caller (src/cli/write-verbs.ts)
 * ran the write and prints the notices.
 */
import { resolvedJson } from '../drafts/resolve.js';
import { foresightNotice } from '../drafts/foresight.js';
import type { WriteOutcome } from '../drafts/write.js';
import type { Rendered } from './result.js';
import {
  adoptedNotice,
  canonicalizedNotice,
  continuationNotice,
  mirrorSkippedNotice,
  sanitizedEntry,
} from './notices.js';
import { validationRejection, WRITE_REJECTED } from './rejection.js';

/** The rendered outcome and its notice lines (stderr, in this order, before the result). */
export interface RenderedWrite {
  result: Rendered;
  notices: string[];
}

export function renderWriteOutcome(outcome: WriteOutcome, explain = false): RenderedWrite {
  const notices: string[] = [];
  const notice = (line: string): void => {
    notices.push(line);
  };
  const sanitized = outcome.sanitized.length > 0 ? { sanitized: outcome.sanitized.map(sanitizedEntry) } : {};
  if (outcome.kind === 'rejected') {
    const result = validationRejection({
      subject: { draft_id: outcome.draftId },
      verdict: outcome.verdict,
      header: WRITE_REJECTED(outcome.draftId),
      extra: { ...sanitized, ...resolvedJson(outcome.resolved) },
      explain,
    });
    return { result, notices };
  }
  if (outcome.adopted) notice(adoptedNotice(outcome.draftId));
  if (outcome.continuation) notice(continuationNotice(outcome.continuation));
  for (const c of outcome.canonicalized) notice(canonicalizedNotice(c));
  const skipped = mirrorSkippedNotice(outcome.draftId, outcome.mirror.outcome, outcome.mirror.message);
  if (skipped !== undefined) notice(skipped);
  for (const w of outcome.warnings) notice(foresightNotice(w));

  const mirrored = outcome.mirror.outcome === 'mirrored';
  const c = outcome.continuation;
  const json: Record<string, unknown> = {
    status: 'ok',
    draft_id: outcome.draftId,
    mirrored,
    ...(mirrored ? {} : { mirror_skipped_reason: outcome.mirror.outcome }),
    ...(outcome.adopted ? { adopted: true } : {}),
    ...(c
      ? {
          continuation: {
            status: c.status,
            contract_id: c.contract_id,
            handoff_id: c.handoff_id,
            continues_contract_id: c.continues_contract_id,
            continues_handoff_id: c.continues_handoff_id,
            continues_state: c.closedState,
          },
        }
      : {}),
    ...(outcome.canonicalized.length > 0
      ? { canonicalized: outcome.canonicalized.map((ch) => ({ path: ch.path, from: ch.from, to: ch.to })) }
      : {}),
    ...sanitized,
    ...(outcome.warnings.length > 0
      ? { warnings: outcome.warnings.map((w) => ({ code: w.code, detail: w.detail })) }
      : {}),
    ...resolvedJson(outcome.resolved),
  };
  return { result: { json, text: `OK: draft ${outcome.draftId} updated and valid.` }, notices };
}
