/**
 * Notice lines of the draft verbs, printed on stderr in both modes. Prefixes are
 * fixed and never coloured.
 */
import type { CanonicalChange } from '../validator/index.js';
import type { Repair } from '../drafts/sanitize.js';
import type { ContinuationInfo } from '../drafts/write.js';
import type { MirrorOutcome } from '../drafts/store-access.js';

const json = (v: unknown): string => (v === undefined ? 'absent' : JSON.stringify(v));

export const adoptedNotice = (draftId: string): string =>
  `[ADOPTED] ${draftId}: the draft file was missing and was materialized from its dispatch row`;

export const continuationNotice = (c: ContinuationInfo): string =>
  `[CONTINUATION opened] ${c.continues_contract_id} (handoff_id ${c.continues_handoff_id}) is closed (${c.closedState}) and ` +
  `keeps its stored envelope; this write went to the new contract ${c.contract_id}: use --draft-id ${c.contract_id} ` +
  `from now on (see handoff contract chain --contract-id ${c.contract_id})`;

/** finalize (or a receipt) addressed a closed contract that was continued: the work goes to the live tip. */
export const followedNotice = (
  closed: { contract_id: string; agent_state: string } | undefined,
  tipId: string,
): string =>
  `[FOLLOWED] ${closed?.contract_id ?? 'the addressed contract'} is closed (${closed?.agent_state ?? 'closed'}) and was continued; ` +
  `its live tip is ${tipId}, which this call works on: use --draft-id ${tipId} from now on`;

export const canonicalizedNotice = (c: CanonicalChange): string =>
  `[CANONICALIZED] ${c.path}: ${json(c.from)} -> ${json(c.to)}`;

/** Only `closed`, `store_busy` and `store_error` are announced; `no_store` / `no_row` are normal and silent. */
export function mirrorSkippedNotice(draftId: string, outcome: MirrorOutcome, message?: string): string | undefined {
  if (outcome === 'closed') {
    return `[MIRROR SKIPPED: closed] ${draftId}: the row closed meanwhile; the draft itself was saved. Run the verb again: it will open a continuation`;
  }
  if (outcome === 'store_busy')
    return `[MIRROR SKIPPED: store_busy] ${draftId}: the store stayed busy; the draft itself was saved`;
  if (outcome === 'store_error') {
    return `[MIRROR SKIPPED: store_error] ${draftId}: ${(message ?? 'store error').replace(/\s*\n\s*/g, ' ')}; the draft itself was saved`;
  }
  return undefined;
}

/** The JSON form of a sanitization entry: `{path, action, home?}`. */
export const sanitizedEntry = (r: Repair): Record<string, unknown> => ({
  path: r.path,
  action: r.action,
  ...(r.home === undefined ? {} : { home: r.home }),
});
