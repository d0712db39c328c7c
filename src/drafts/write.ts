/**
 * The write pipeline of `set`, `add` and `fill`: resolve → lock → find the target
 * along the chain → sanitize → apply the change (refused when the result nests deeper than MAX_JSON_DEPTH) → full
 * verdict → canonicalize → commit a planned continuation → save atomically and number the save → release → mirror
 * (guarded by the save's revision). Steps up to
 * canonicalization change nothing on disk or in the store; every lock is released on every path. A continuation
 * that loses the race to another writer restarts once.
 */
import { HandoffError } from '../errors.js';
import type { JsonObject } from '../envelope/vocabulary.js';
import { agentPrefix, mintDraftId } from '../ids.js';
import { exceedsDepth, tooDeep } from '../json.js';
import { maxEnvelopeBytes, type Env } from '../paths.js';
import { canonicalizeEnvelope, type CanonicalChange, type ValidationResult } from '../validator/index.js';
import { closedElsewhereNotice } from './closed-elsewhere.js';
import { envelopeTooLarge } from './errors.js';
import { saveDraft } from './files.js';
import { foreseeRefusals, type FinalizeWarning } from './foresight.js';
import { LockSet } from './lock.js';
import { resolveInStore, type Addressing, type ImplicitResolution } from './resolve.js';
import { bumpRevision } from './revision.js';
import { sanitizeEnvelope, sanitizedNotice, type Repair } from './sanitize.js';
import { isClosedRow, openStoreSession, type HandoffRow, type MirrorOutcome } from './store-access.js';
import { metaFor, type DraftMeta } from './meta.js';
import { adoptionMeta, continuationSeed, loadOrAdopt, lockChainToTip, readAhead } from './target.js';

export interface WriteRequest {
  env: Env;
  cwd?: string;
  addressing: Addressing;
  /** The verb's change on a copy of the base; throws its refusal (PATH_NOT_OBJECT, NOT_A_LIST, ...) naming `draftId`. */
  apply(base: JsonObject, draftId: string): JsonObject;
  /** Prints one notice line at once (stderr). */
  notice: (line: string) => void;
  /**
   * What a write aimed at a closed contract does. `continue` (default, set/add/fill): open a continuation link and
   * write there. `skip` (the receipt append): write only to the resolved contract itself;
   * when the chain's live tip is closed, or the resolved contract is no longer the tip (it was closed and continued),
   * return `{kind: 'closed_tip'}` without applying the change, opening a link or writing anything.
   */
  onClosedTip?: 'continue' | 'skip';
}

export interface ContinuationInfo {
  status: 'opened';
  contract_id: string;
  handoff_id: number;
  continues_contract_id: string;
  continues_handoff_id: number;
  /** The closed tip's state (for the notice). */
  closedState: string;
}

export type WriteOutcome =
  | {
      kind: 'ok';
      draftId: string;
      mirror: { outcome: MirrorOutcome; message?: string };
      adopted: boolean;
      continuation?: ContinuationInfo;
      canonicalized: CanonicalChange[];
      sanitized: Repair[];
      /** What finalize will refuse that this write can already see. */
      warnings: FinalizeWarning[];
      /** Set when no id was given: the draft was the newest of the current workspace. */
      resolved?: ImplicitResolution;
    }
  | {
      kind: 'rejected';
      draftId: string;
      verdict: ValidationResult;
      sanitized: Repair[];
      resolved?: ImplicitResolution;
    };

/** `onClosedTip: 'skip'` met a closed contract: `draftId` the resolved contract, `tipId` its chain's live tip. */
export interface ClosedTipOutcome {
  kind: 'closed_tip';
  draftId: string;
  tipId: string;
}

const RESTART = Symbol('restart');

/**
 * The revision of the save just made (under the lock; drafts/revision.ts), or why none could be recorded: the draft
 * is saved, and its mirror is left to the next write or finalize, as for a store that cannot be reached.
 */
function numberSave(env: Env, draftId: string, rowRev: number, cwd: string | undefined): number | string {
  try {
    return bumpRevision(env, draftId, rowRev, cwd);
  } catch (e) {
    return `the draft's revision could not be recorded (${(e as Error).message})`;
  }
}

export function writeDraft(req: WriteRequest & { onClosedTip: 'skip' }): Promise<WriteOutcome | ClosedTipOutcome>;
export function writeDraft(req: WriteRequest): Promise<WriteOutcome>;
export async function writeDraft(req: WriteRequest): Promise<WriteOutcome | ClosedTipOutcome> {
  const first = await attempt(req, false);
  if (first !== RESTART) return first;
  const second = await attempt(req, true);
  if (second !== RESTART) return second;
  throw new HandoffError(
    'STORE_BUSY',
    'another writer opened the continuation link twice during this write; run it again',
  );
}

async function attempt(
  req: WriteRequest,
  restarted: boolean,
): Promise<WriteOutcome | ClosedTipOutcome | typeof RESTART> {
  const { env, cwd } = req;
  const limit = maxEnvelopeBytes(env);
  const store = await openStoreSession(env, cwd);
  const locks = new LockSet(env, cwd);
  let succeeded = false;
  try {
    const { draftId, implicit: resolved } = await resolveInStore(
      env,
      cwd,
      req.addressing,
      store,
      restarted ? undefined : req.notice,
    );
    // Connected, and the row read, before the lock is taken: a hundred parallel writers each hold the lock only for
    // the file work (no store round trip under it unless a finalize came in between; target.ts).
    await store.prepare?.();
    const ahead = await readAhead(env, cwd, store, draftId);
    const tip = await lockChainToTip(locks, store, draftId, { ...ahead, env, cwd });
    const closedTip: HandoffRow | undefined =
      tip.tipRow !== undefined && isClosedRow(tip.tipRow) ? tip.tipRow : undefined;
    if (req.onClosedTip === 'skip' && (closedTip !== undefined || tip.tipId !== draftId)) {
      return { kind: 'closed_tip', draftId, tipId: tip.tipId };
    }

    let base: JsonObject;
    let adopted = false;
    // The birth record of a draft this write creates: a continuation link, or a draft materialized from its row.
    let meta: DraftMeta | undefined;
    let sanitized: Repair[] = [];
    if (closedTip !== undefined) {
      base = continuationSeed(tip.tipId);
      meta = metaFor(closedTip.workspace);
    } else {
      const loaded = loadOrAdopt(env, cwd, tip.tipId, tip.tipRow);
      adopted = loaded.adopted;
      if (adopted && tip.tipRow !== undefined) meta = adoptionMeta(env, cwd, tip.tipId, tip.tipRow);
      const s = sanitizeEnvelope(loaded.envelope);
      base = s.envelope;
      sanitized = s.repairs;
      for (const r of sanitized) req.notice(sanitizedNotice(r));
    }

    const changed = req.apply(base, tip.tipId);
    // A VALUE or patch within the depth limit can still land too deep (a long FIELD path, an adopted deep row):
    // refuse before anything is committed (exit 2, nothing written).
    if (exceedsDepth(changed)) throw tooDeep(`the envelope after this write to ${tip.tipId}`);
    // The envelope as the row stores it (compact JSON) stays within the limit; checked before validation.
    const bytes = Buffer.byteLength(JSON.stringify(changed), 'utf8');
    if (bytes > limit) throw envelopeTooLarge(`the envelope of ${tip.tipId} after this write`, bytes, limit);
    const consolidation = tip.tipRow !== undefined && Number(tip.tipRow.consolidation) === 1;
    const citing = tip.tipRow;
    const approvalChain = async (): Promise<string[]> => (citing === undefined ? [tip.tipId] : store.chainIds(citing));
    // A write to a closed tip lands in a new continuation: no row of its own has used an approval yet.
    const citingHandoffId = closedTip === undefined ? (tip.tipRow?.id ?? null) : null;
    const verdict = await store.verdict(
      changed,
      { consolidation, source: 'declaration', citingHandoffId, citingAgentId: agentPrefix(tip.tipId) },
      approvalChain,
    );
    if (!verdict.ok) return { kind: 'rejected', draftId: tip.tipId, verdict, sanitized, resolved };
    const canonical = canonicalizeEnvelope(changed);
    // Read before anything is written, so a store error here leaves nothing behind. A continuation link inherits the
    // closed tip's bindings and agent prefix, so the tip row answers for it too.
    const planTaskId = tip.tipRow === undefined ? null : await store.planTaskBinding(tip.tipRow);
    const warnings = foreseeRefusals(canonical.envelope, tip.tipId, () => ({
      planTaskId,
      requireReceipt: tip.tipRow !== undefined && Number(tip.tipRow.require_receipt) === 1,
      verification: tip.tipRow?.verification,
    }));

    let writeId = tip.tipId;
    let writeRow = tip.tipRow;
    let continuation: ContinuationInfo | undefined;
    let elsewhere: string | undefined;
    if (closedTip !== undefined) {
      const newId = mintDraftId(agentPrefix(tip.tipId));
      await locks.add(newId);
      const link = await store.insertContinuation(closedTip, newId, JSON.stringify(continuationSeed(tip.tipId)));
      if (link === undefined) {
        if (!restarted) return RESTART;
        throw new HandoffError(
          'STORE_BUSY',
          `another writer opened a continuation of ${tip.tipId} twice during this write; run it again`,
        );
      }
      writeId = newId;
      writeRow = link;
      continuation = {
        status: 'opened',
        contract_id: newId,
        handoff_id: link.id,
        continues_contract_id: tip.tipId,
        continues_handoff_id: closedTip.id,
        closedState: closedTip.agent_state,
      };
      elsewhere = closedElsewhereNotice(env, cwd, tip.tipId, closedTip.agent_state, newId);
    }

    saveDraft(env, writeId, canonical.envelope, cwd, meta);
    succeeded = true;
    if (elsewhere !== undefined) req.notice(elsewhere);
    const rowRev = writeRow === undefined || !(await store.exists()) ? undefined : Number(writeRow.mirror_rev ?? 0);
    const rev = rowRev === undefined ? undefined : numberSave(env, writeId, rowRev, cwd);
    // The mirror runs after the lock is released, so the lock is never held across the store's round trips (a slow
    // or busy store no longer makes the next writer wait). Its order is kept by the revision: a copy lands only over
    // an older one. Whether this write lands here or in a continuation was decided above, under the lock, from the
    // row read under it: finalize takes the same lock, so it cannot close the row between that read and the save,
    // and a finalize that closes it after the release reads this save (the row then holds this write).
    locks.releaseAll();
    const mirror: { outcome: MirrorOutcome; message?: string } = !(await store.exists())
      ? { outcome: 'no_store' }
      : rev === undefined
        ? { outcome: 'no_row' }
        : typeof rev === 'string'
          ? { outcome: 'store_error', message: rev }
          : await store.mirror(writeId, JSON.stringify(canonical.envelope), rev);
    return {
      kind: 'ok',
      draftId: writeId,
      mirror,
      adopted,
      continuation,
      canonicalized: canonical.changes,
      sanitized,
      warnings,
      resolved,
    };
  } finally {
    locks.releaseAll(!succeeded);
    await store.close();
  }
}
