/**
 * `contract finalize`: the clean close. Steps 2–10 in order; the first failing
 * step ends the call and nothing is written (no row, no evidence, no draft change). All store reads go through the
 * one writer store, SQLite or PostgreSQL alike; the store is created only at step 10, when the call is about to
 * write, in one transaction holding the contract's lock (and the cited approval's).
 *
 * Seams: the evidence clause is src/evidence/update-contracts.ts (step 9 static rules; step 10's reference checks and
 * inserts on the transaction's handle, store blobs included); the receipt checks of step 9b are
 * src/finalize/receipts-step.ts (rows and their outputs read through the store, judged by src/receipts/checks.ts).
 * Both run through the Store interface only, so SQLite and PostgreSQL take the same path.
 */
import { HandoffError, isHandoffError } from '../errors.js';
import { agentPrefix } from '../ids.js';
import { isObject, own, type JsonObject } from '../envelope/vocabulary.js';
import { dbPath, type Env } from '../paths.js';
import { citedApprovalKey, type ValidationResult } from '../validator/index.js';
import { approvalLock } from '../approvals/decide.js';
import { LockSet } from '../drafts/lock.js';
import { resolveInStore, type Addressing, type ImplicitResolution } from '../drafts/resolve.js';
import { followedNotice } from '../render/notices.js';
import { closedElsewhereNotice } from '../drafts/closed-elsewhere.js';
import { isClosedRow, sessionOver, type StoreSession } from '../drafts/store-access.js';
import { readDraftMeta, recordedWorkspace } from '../drafts/meta.js';
import { noteClose, readRevision } from '../drafts/revision.js';
import { loadOrAdopt, lockChainToTip } from '../drafts/target.js';
import {
  checkEvidenceBatch,
  checkEvidenceRefsIn,
  insertEvidenceRows,
  type ResolvedEntry,
} from '../evidence/update-contracts.js';
import { openStoreIfAny, storeKind } from '../store/open-store.js';
import { storeWriteRefused } from '../store/store-errors.js';
import type { HandoffRow } from '../store/handoffs.js';
import { isConstraintViolation, type Store, type StoreReads } from '../store/store.js';
import { attestApprovalUse, attestFinalized, type Signer } from '../attest/record.js';
import { finalEnvelope } from './envelope.js';
import { receiptStep, type ReceiptFreshness } from './receipts-step.js';
import type { EarlyTestStep, TestStepResult } from './test-changes.js';
import { rowChecks, rowPolicy } from './verification-policy.js';
import { envelopeState, firstRefusal, type Refusal } from './refusals.js';
import {
  checkUpdateContracts,
  mergeByEntry,
  UPDATE_CONTRACTS_REPAIR,
  writableSections,
  type ClauseError,
} from './update-contracts.js';

export interface FinalizeRequest {
  env: Env;
  cwd: string;
  addressing: Addressing;
  /**
   * The resolved workspace (flag, env, git top-level, cwd); used only when the call inserts the row, and only for a
   * draft without a birth record (drafts/meta.ts): a recorded workspace wins.
   */
  workspace: string;
  /** `--workspace` as given: with a recorded workspace, a differing value is WORKSPACE_MISMATCH (exit 2). */
  workspaceFlag?: string;
  planTaskId: string | undefined;
  allowStale: boolean;
  notice: (line: string) => void;
}

export interface FinalizeDone {
  kind: 'ok';
  created: boolean;
  unchangedReason?: 'complete_write_once' | 'identical';
  tipId: string;
  followedFrom?: string;
  handoffId: number;
  agentState: string;
  workspace: string;
  evidenceInserted: number;
  /** Set when no id was given: the draft was the newest of the current workspace. */
  resolved?: ImplicitResolution;
  /** The cited receipts' freshness as recorded on the row by this call (a write only). */
  receiptFreshness?: ReceiptFreshness[];
}

export type FinalizeOutcome =
  | FinalizeDone
  | { kind: 'rejected'; tipId: string; codes: string[]; errors: ClauseError[]; repair: string }
  | { kind: 'refused'; tipId: string; refusal: Refusal };

/** The view lockChainToTip needs, over finalize's own writer (or no store at all). */
const sessionOf = (store: Store | null, where: { env: Env; cwd: string }): StoreSession =>
  sessionOver(
    () => Promise.resolve(store),
    () => Promise.reject(new HandoffError('INTERNAL', 'finalize never opens a continuation link')),
    () => Promise.resolve(),
    where,
  );

/** The no-op decision on the current row. */
function noopReason(
  row: HandoffRow,
  state: string | undefined,
  json: string,
  binding: string | null,
  flag: string | undefined,
) {
  if (row.agent_state === 'COMPLETE') return 'complete_write_once' as const;
  const newBinding = flag !== undefined && flag !== binding;
  if (row.agent_state === state && row.raw_handoff_json === json && row.cut_reason === null && !newBinding)
    return 'identical' as const;
  return undefined;
}

/**
 * The writer of an existing store. A SQLite store at this build's version is opened as a probe and promoted on the
 * same connection (db.ts promoteProbe): nothing to migrate, so the migration files are not read and hashed on every
 * finalize. An older or read-only store gets a writer the usual way (which migrates, or says why it cannot).
 */
async function existingWriter(env: Env, cwd: string): Promise<Store | null> {
  if (storeKind(env) !== 'sqlite') return openStoreIfAny(env, cwd, 'writer');
  const probe = await openStoreIfAny(env, cwd, 'probe');
  if (probe === null) return null;
  const writer = await probe.currentWriter?.().catch(() => undefined);
  if (writer !== undefined) return writer;
  await probe.close();
  return openStoreIfAny(env, cwd, 'writer');
}

export async function finalizeDraft(req: FinalizeRequest): Promise<FinalizeOutcome> {
  const { env, cwd } = req;
  let store = await existingWriter(env, cwd);
  const locks = new LockSet(env, cwd);
  try {
    // Step 2: resolve, lock along the chain, follow it to the live tip, load or materialize the draft.
    let session = sessionOf(store, { env, cwd });
    const { draftId, implicit: resolved } = await resolveInStore(
      env,
      cwd,
      req.addressing,
      session,
      req.notice,
      req.workspaceFlag,
    );
    let tip = await lockChainToTip(locks, session, draftId);
    if (store === null && (store = await existingWriter(env, cwd)) !== null) {
      // Another process created the store while this one waited for the lock (e.g. a concurrent finalize of this
      // draft): read the row through it, so every later step sees the same state as the transaction.
      session = sessionOf(store, { env, cwd });
      tip = await lockChainToTip(locks, session, draftId);
    }
    const tipId = tip.tipId;
    const tipRow = tip.tipRow;
    const followedFrom = tipId !== draftId ? draftId : undefined;
    if (followedFrom !== undefined) req.notice(followedNotice(tip.chain[0], tipId));
    // A row another host closed while this host's draft reads an open state: said before the finalize's own verdict.
    const closedHere =
      followedFrom !== undefined ? tip.chain[0] : tipRow !== undefined && isClosedRow(tipRow) ? tipRow : undefined;
    const elsewhere =
      closedHere === undefined
        ? undefined
        : closedElsewhereNotice(env, cwd, closedHere.contract_id, closedHere.agent_state, tipId);
    if (elsewhere !== undefined) req.notice(elsewhere);
    const loaded = loadOrAdopt(env, cwd, tipId, tipRow);
    // The draft's revision, read under its lock with the draft: a write's mirror still in flight that finds the row
    // closed by this finalize then knows the row holds its save (drafts/revision.ts).
    const revision = readRevision(env, tipId, cwd).rev;
    const workspace = recordedWorkspace(env, cwd, tipId, req.workspaceFlag) ?? req.workspace;
    // An init draft's claim token hash, from its sidecar, for the row this finalize inserts (a row that exists keeps
    // the hash it has, or none).
    const claimTokenHash = tipRow === undefined ? readDraftMeta(env, tipId, cwd)?.claim_token_sha256 : undefined;

    // The test-change step's head start (step 9c): its base is read and git's listing started now, to run meanwhile.
    const testsEarly = earlyTestStep(store, tipRow, env);

    // Step 3: sanitize, canonicalize, remove the capture markers.
    const envelope = finalEnvelope(loaded.envelope, req.notice);
    const json = JSON.stringify(envelope);
    const state = envelopeState(envelope);
    const binding = store !== null && tipRow ? await store.planTaskBinding(tipRow) : null;
    const done = (
      row: HandoffRow,
      created: boolean,
      reason?: FinalizeDone['unchangedReason'],
      inserted = 0,
    ): FinalizeDone => ({
      kind: 'ok',
      created,
      ...(reason ? { unchangedReason: reason } : {}),
      tipId,
      ...(followedFrom ? { followedFrom } : {}),
      handoffId: row.id,
      agentState: row.agent_state,
      workspace: row.workspace,
      evidenceInserted: inserted,
      ...(resolved === undefined ? {} : { resolved }),
    });

    // Step 3b: read-only no-op probe.
    if (tipRow !== undefined) {
      const reason = noopReason(tipRow, state, json, binding, req.planTaskId);
      if (reason !== undefined) return done(tipRow, false, reason);
    }

    // Step 4: full verdict (form + approval cross-check, with the approval bound to this chain and its content).
    const consolidation = tipRow !== undefined && Number(tipRow.consolidation) === 1;
    const chainIds = store !== null && tipRow ? await store.chainContractIds(tipRow) : [tipId];
    // Finalize judges as the gate does: an executing turn (a closing state other than APPROVAL_REQUEST) needs the
    // approved approval, or the one this very row used; the row that cites is the one this call writes.
    const verdictOf = async (reads: StoreReads | null, citingHandoffId: number | null): Promise<ValidationResult> => {
      const { storeVerdict } = await import('../approvals/store-verdict.js');
      const options = {
        consolidation,
        source: 'declaration' as const,
        approvalUse: 'close' as const,
        citingHandoffId,
        citingAgentId: agentPrefix(tipId),
      };
      return storeVerdict(envelope, options, reads, { env, cwd }, () => Promise.resolve(chainIds));
    };
    const verdict = await verdictOf(store !== null && store.version > 0 ? store : null, tipRow?.id ?? null);
    if (!verdict.ok)
      return { kind: 'rejected', tipId, codes: verdict.codes, errors: verdict.errors, repair: verdict.repair };

    // Steps 5–8: identity, closing state, binding, blind verification.
    const refusal = firstRefusal({ tipId, envelope, binding, planTaskFlag: req.planTaskId });
    if (refusal !== undefined) return { kind: 'refused', tipId, refusal };

    // Step 9: update_contracts static checks (shape, writable sections, evidence payloads and artifact files).
    const uc = envelope.update_contracts;
    const shapeErrors = checkUpdateContracts(envelope, writableSections(tipRow?.can_write_json));
    const batch = checkEvidenceBatch(uc, { envelope, env, cwd });
    const step9 = mergeByEntry(shapeErrors, batch.errors);
    if (step9.length > 0) return listRejection(tipId, step9, UPDATE_CONTRACTS_REPAIR);

    // Step 9b: receipt checks, outside the write transaction.
    const receipts = await receiptStep(store, envelope, {
      chainIds,
      requireReceipt: tipRow !== undefined && Number(tipRow.require_receipt) === 1,
      allowStale: req.allowStale,
      policy: rowPolicy(tipRow),
      checks: rowChecks(tipRow),
      env,
      cwd,
    });
    if (receipts.errors.length > 0) return listRejection(tipId, receipts.errors, receipts.repair);

    // Step 9c: the test files changed since the turn's base (src/finalize/test-changes.ts), detected once, here.
    const tests = await testStep(store, tipRow, envelope, state, env, testsEarly);
    if (tests.errors.length > 0) return listRejection(tipId, tests.errors, tests.repair);

    // Step 10: the store transaction (creates the store only now). Without a store, every refusal this step can give
    // is decided before it is created, so a refused call leaves none: no brief can resolve, and on SQLite its own
    // json_valid() (the raw_handoff_json CHECK) is asked on an in-memory connection.
    // Without a store at step 4 the cross-check was skipped; a store created now holds no approval to re-read.
    const recheckApproval = store !== null;
    // The signing key is read before anything is created or written: an unsafe or unreadable key refuses the call.
    const { storeSigner } = await import('../attest/signer.js');
    const signer = storeSigner(env, cwd);
    if (store === null) {
      const refErrors = await checkEvidenceRefsIn(null, batch.entries, { workspace });
      if (refErrors.length > 0) return listRejection(tipId, refErrors, UPDATE_CONTRACTS_REPAIR);
      if (storeKind(env) === 'sqlite') {
        const { sqliteAcceptsJson } = await import('../store/finalize-row.js');
        if (!sqliteAcceptsJson(json)) throw storeWriteRefused(dbPath(env, cwd), writeOf(tipId), JSON_REFUSED);
      }
      store = (await openStoreIfAny(env, cwd, 'writer', { create: true }))!;
    }
    let wrote = false;
    try {
      const out = await commit(store, {
        req,
        tipId,
        workspace,
        envelope,
        json,
        state: state!,
        binding,
        entries: batch.entries,
        done,
        verdictOf,
        recheckApproval,
        signer,
        revision,
        tests,
        claimTokenHash,
        freshness: receipts.freshness,
      });
      wrote = out.kind === 'ok' && out.created;
      return out;
    } catch (e) {
      wrote = isHandoffError(e) && e.data.outcome === 'unknown'; // a COMMIT that may have been written
      throw e;
    } finally {
      // Still under the lock: a write that read the row before taking the lock then reads it again under the lock.
      if (wrote) noteClose(env, tipId, cwd);
    }
  } finally {
    locks.releaseAll(true);
    await store?.close();
  }
}

type TestStep = Omit<TestStepResult, 'errors'> & { errors: ClauseError[]; repair: string };

/**
 * Step 9c through its module, loaded only when the turn has a row (a base may be on it or on its chain) or the
 * envelope declares test changes, so a plain finalize without a store pays nothing for it.
 */
async function testStep(
  store: Store | null,
  row: HandoffRow | undefined,
  envelope: JsonObject,
  state: string | undefined,
  env: Env,
  early: Promise<EarlyTestStep> | undefined,
): Promise<TestStep> {
  const report = own(envelope, 'evidence_report');
  const verification = isObject(report) ? own(report, 'verification') : undefined;
  const declares = isObject(verification) && own(verification, 'test_changes') !== undefined;
  if ((store === null || row === undefined) && !declares) return { errors: [], repair: '' };
  const { testChangeStep, TEST_CHANGES_REPAIR } = await import('./test-changes.js');
  return { ...(await testChangeStep(store, row, envelope, state, env, early)), repair: TEST_CHANGES_REPAIR };
}

/** Starts step 9c's base read and listing for a row that may have a base (its own, or a continuation's chain's). */
function earlyTestStep(store: Store | null, row: HandoffRow | undefined, env: Env): Promise<EarlyTestStep> | undefined {
  if (store === null || row === undefined) return undefined;
  if (row.test_base_json == null && row.continues_handoff_id === null) return undefined;
  return import('./test-changes.js').then(
    (m) => m.startTestStep(store, row, env),
    () => ({}),
  );
}

function listRejection(tipId: string, errors: ClauseError[], repair: string): FinalizeOutcome {
  return { kind: 'rejected', tipId, codes: [...new Set(errors.map((e) => e.code))], errors, repair };
}

interface CommitInput {
  req: FinalizeRequest;
  tipId: string;
  /** The workspace a new row takes (the recorded one, else the resolved one). */
  workspace: string;
  envelope: JsonObject;
  json: string;
  state: string;
  binding: string | null;
  entries: ResolvedEntry[];
  done: (
    row: HandoffRow,
    created: boolean,
    reason?: FinalizeDone['unchangedReason'],
    inserted?: number,
  ) => FinalizeDone;
  /** The full verdict of step 4 over a given store view (re-run inside the transaction). */
  verdictOf: (reads: StoreReads | null, citingHandoffId: number | null) => Promise<ValidationResult>;
  /** The store existed at step 4, so the approval cross-check ran there and runs again in the transaction. */
  recheckApproval: boolean;
  /** Signs the statement of the write (HANDOFF_SIGNING_KEY); without one the statement is stored unsigned. */
  signer: Signer | undefined;
  /** The draft's revision read with it (the row's mirror_rev keeps the higher). */
  revision: number;
  /** Step 9c's detection, stored on the row before its closing state. */
  tests: TestStep;
  /** The init draft's claim token hash, set on the row when this transaction inserts it as a chain's first. */
  claimTokenHash: string | undefined;
  /** What step 9b saw of each cited receipt (recorded on the row). */
  freshness: ReceiptFreshness[];
}

const writeOf = (tipId: string): string => `the finalize write of ${tipId}`;
const JSON_REFUSED =
  'CHECK json_valid(raw_handoff_json) would fail: SQLite accepts JSON nested at most 1000 levels; no store file was created';

/**
 * Re-read the row, no-op or write (UPSERT + evidence) in one store transaction holding the contract's lock
 * (on PostgreSQL the per-contract advisory lock serializes finalizes from every host, and
 * `approval decide` of an approval this contract cites). A constraint the store enforces and the earlier steps did
 * not foresee rolls the transaction back and is STORE_WRITE_REFUSED (exit 4).
 */
async function commit(store: Store, c: CommitInput): Promise<FinalizeOutcome> {
  try {
    return await store.tx(
      async (t): Promise<FinalizeOutcome> => {
        const row = await t.getHandoffByContractId(c.tipId);
        if (row !== undefined) {
          const reason = noopReason(row, c.state, c.json, c.binding, c.req.planTaskId);
          if (reason !== undefined) return c.done(row, false, reason);
        }
        // The approval is read again inside the transaction that stores the closing state, so a
        // decision taken since step 4 is seen before finalized_at is set (a cited approval decided meanwhile rejects).
        const again = c.recheckApproval ? await c.verdictOf(t, row?.id ?? null) : undefined;
        if (again !== undefined && !again.ok)
          return { kind: 'rejected', tipId: c.tipId, codes: again.codes, errors: again.errors, repair: again.repair };
        const workspace = row?.workspace ?? c.workspace;
        if (row !== undefined && c.tests.stored !== undefined)
          await t.setTestChanges(row.id, JSON.stringify(c.tests.stored), c.tests.baseJson ?? null);
        const refErrors = await checkEvidenceRefsIn(t, c.entries, { workspace });
        if (refErrors.length > 0) return listRejection(c.tipId, refErrors, UPDATE_CONTRACTS_REPAIR);
        const id = await t.upsertFinalRow({
          contract_id: c.tipId,
          agent_id: c.tipId.slice(0, c.tipId.indexOf('.')),
          workspace,
          agent_state: c.state,
          json: c.json,
          plan_task_id: c.binding === null ? (c.req.planTaskId ?? null) : null,
          mirror_rev: c.revision,
          receipt_freshness_json: c.freshness.length > 0 ? JSON.stringify(c.freshness) : null,
        });
        const written = (await t.getHandoffByContractId(c.tipId))!;
        if (id === undefined) return c.done(written, false, 'complete_write_once');
        if (row === undefined && c.claimTokenHash !== undefined && written.continues_handoff_id === null)
          await t.setClaimTokenHash(id, c.claimTokenHash);
        const inserted = await insertEvidenceRows(t, c.entries, {
          handoffId: id,
          replace: row !== undefined,
          blobs: store.blobs,
        });
        // The executing turn's approval is used by this row, in this transaction (approved → used; the re-check
        // above passed, so it is approved or already this row's).
        const key = citedApprovalKey(c.envelope);
        if (c.recheckApproval && key !== undefined && c.state !== 'APPROVAL_REQUEST') await t.markApprovalUsed(key, id);
        await attestFinalized(t, written, c.signer);
        if (key !== undefined) await attestApprovalUse(t, key, c.signer);
        return { ...c.done(written, true, undefined, inserted), receiptFreshness: c.freshness };
      },
      { lock: approvalLocks(c) },
    );
  } catch (e) {
    if (isConstraintViolation(e)) throw storeWriteRefused(store.location, writeOf(c.tipId), (e as Error).message);
    throw e;
  }
}

/**
 * The locks of the finalize transaction: the contract's, and the cited approval's (`approval:<id>`, the lock
 * `approval decide` takes), so a decision and the re-check inside this transaction never interleave.
 */
function approvalLocks(c: CommitInput): string[] {
  const key = citedApprovalKey(c.envelope);
  return key === undefined ? [c.tipId] : [c.tipId, approvalLock(key)];
}
