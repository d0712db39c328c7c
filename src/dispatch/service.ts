/**
 * `contract dispatch`: every check first, nothing written when one fails; the DB file
 * is created only after all checks passed; then the draft and the DISPATCHED row. A failed insert removes the
 * draft again, so no half-born contract remains.
 */
import { HandoffError, isHandoffError } from '../errors.js';
import { initialEnvelope, type JsonObject } from '../envelope/vocabulary.js';
import { mintAgentId, mintDraftId } from '../ids.js';
import { draftsDir, type Env } from '../paths.js';
import { draftEntryExists, removeDraftFiles, saveDraft } from '../drafts/files.js';
import { LockSet } from '../drafts/lock.js';
import { acceptanceColumn, readStoredJson } from '../store/stored-json.js';
import { isClosedState, type HandoffRow } from '../store/handoff-row.js';
import { openStoreIfAny } from '../store/open-store.js';
import { isConstraintViolation, type Store, type StoreReads, type StoreTx } from '../store/store.js';
import { harnessInUse, harnessLock } from './harness.js';
import { storeUnreadable, storeWriteRefused } from '../store/store-errors.js';
import { briefNotFoundError } from '../evidence/brief-service.js';
import { closeRules, renderContractBlock, type AcceptanceItem, type BlockInfo, type CloseRule } from './block.js';
import type { DispatchRequest } from './options.js';
import { takeTestBase } from './test-base.js';
import { claimTokenHash, mintClaimToken } from './claim-token.js';

export interface DispatchResult {
  row: HandoffRow;
  block: BlockInfo;
  rules: CloseRule[];
  text: string;
  /** The claim token: printed to the orchestrator, never in `text`; the row keeps its sha256. */
  claimToken: string;
}

interface Resolved {
  brief?: { id: number; name: string };
  briefAcs: AcceptanceItem[];
  parent?: HandoffRow;
}

const parentNotFound = (id: number): HandoffError =>
  new HandoffError('PARENT_HANDOFF_NOT_FOUND', `--parent-handoff-id ${id} names no handoff row`, {
    parent_handoff_id: id,
  });

/** The store checks: brief, parent, harness id. `s` null = no store (nothing is created). */
async function checkAgainstStore(s: StoreReads | null, req: DispatchRequest): Promise<Resolved> {
  const out: Resolved = { briefAcs: [] };
  if (req.brief !== undefined) {
    const brief = s === null ? undefined : await s.findBrief(req.workspace, req.brief);
    if (brief === undefined) {
      const near = s === null ? undefined : await s.findBriefIgnoringCase(req.workspace, req.brief);
      throw briefNotFoundError(
        req.workspace,
        req.brief,
        near,
        s === null ? [] : await s.workspacesWithBrief(req.brief),
      );
    }
    out.brief = { id: brief.id, name: brief.name };
    out.briefAcs = (await s!.listAcs(brief.id)).map((a) => ({ ac_id: a.ac_id, description: a.description }));
  }
  if (req.parentHandoffId !== undefined) {
    const parent = s === null ? undefined : await s.getHandoffById(req.parentHandoffId);
    if (parent === undefined) throw parentNotFound(req.parentHandoffId);
    if (req.kind === 'verifier' && !isClosedState(parent.agent_state)) {
      throw new HandoffError(
        'PARENT_NOT_CLOSED',
        `parent handoff ${parent.id} (contract ${parent.contract_id}) is ${parent.agent_state}, not closed; a verifier is dispatched for a finalized row`,
        { parent_handoff_id: parent.id, agent_state: parent.agent_state },
      );
    }
    out.parent = parent;
  }
  if (req.harnessId !== undefined && s !== null) {
    const holders = await s.rowsWithHarnessId(req.harnessId);
    if (holders.length > 0) throw harnessInUse(req.harnessId, [...new Set(holders.map((r) => r.contract_id))]);
  }
  return out;
}

export async function dispatch(req: DispatchRequest, env: Env, cwd: string): Promise<DispatchResult> {
  // With a store, the checks read it through the writer (which migrates an older store first). Without one, the
  // checks run against "no store" and the store is created only after they all passed.
  let store = await openStoreIfAny(env, cwd, 'writer');
  const locks = new LockSet(env, cwd);
  let draftId: string | undefined;
  let done = false;
  try {
    await checkAgainstStore(store, req);
    // The test base is taken before anything is written (git and the test files' hashes, outside the transaction).
    const testBase = JSON.stringify(takeTestBase(req.tests.workdir, req.tests.globs, req.tests.protect, env, cwd));
    // drafts/ must be a real folder before the store is created for the row.
    draftsDir(env, cwd);
    store ??= (await openStoreIfAny(env, cwd, 'writer', { create: true }))!;
    const agentId = req.agentId ?? mintAgentId();
    const claimToken = mintClaimToken();
    for (;;) {
      draftId = mintDraftId(agentId);
      await locks.add(draftId);
      if (!draftEntryExists(env, draftId, cwd)) break; // never over an existing file (a 48-bit collision: re-mint)
    }
    const envelope: JsonObject = initialEnvelope(agentId);
    // The draft is saved before the transaction, never inside it (a transaction may run more than once).
    saveDraft(env, draftId, envelope, cwd, { workspace: req.workspace, dispatched: true });
    const id = draftId;
    // The harness id's lock serializes dispatches (and claims) of one run id across hosts.
    const lock = req.harnessId === undefined ? [id] : [id, harnessLock(req.harnessId)];
    const { row, resolved } = await insertRow(store, id, lock, async (t) => {
      // Re-checked inside the transaction: a concurrent dispatch may have taken the harness id meanwhile.
      const resolved = await checkAgainstStore(t, req);
      const acceptance = [...resolved.briefAcs, ...req.acceptance.map((d) => ({ ac_id: null, description: d }))];
      const row = await t.insertBirthRow({
        contract_id: id,
        agent_id: agentId,
        workspace: req.workspace,
        raw_handoff_json: JSON.stringify(envelope),
        kind: req.kind,
        plan_task_id: req.planTaskId ?? null,
        parent_handoff_id: req.parentHandoffId ?? null,
        brief_id: resolved.brief?.id ?? null,
        goal: req.goal,
        consolidation: req.consolidation,
        require_receipt: req.requireReceipt,
        verification: req.verification,
        checks_json: req.checks.length > 0 ? JSON.stringify(req.checks) : null,
        harness_id: req.harnessId ?? null,
        can_write_json: req.canWrite.length > 0 ? JSON.stringify(req.canWrite) : null,
        acceptance_json: acceptance.length > 0 ? JSON.stringify(acceptance) : null,
        require_approval_json: req.requireApproval.length > 0 ? JSON.stringify(req.requireApproval) : null,
      });
      await t.setTestBase(row.id, testBase);
      await t.setClaimTokenHash(row.id, claimTokenHash(claimToken));
      return { row: { ...row, test_base_json: testBase }, resolved };
    });
    done = true;
    const block = blockInfo(row, req, resolved);
    const rules = closeRules(block);
    return { row, block, rules, text: renderContractBlock(block, rules), claimToken };
  } catch (e) {
    // A COMMIT without an answer may have written the row: the draft stays (the next finalize converges either
    // way), and the caller learns which contract it was.
    if (draftId !== undefined && !done && isUnknownOutcome(e)) {
      done = true;
      throw new HandoffError(
        e.code,
        e.exit,
        `${e.message}; the contract ${draftId} may or may not have a row: its draft was kept (finalize it as usual)`,
        {
          ...e.data,
          contract_id: draftId,
        },
        e.hint,
      );
    }
    if (draftId !== undefined && !done) removeDraftFiles(env, draftId, cwd);
    throw e;
  } finally {
    locks.releaseAll(!done);
    await store?.close();
  }
}

/**
 * The insert's transaction. A named refusal passes through; data the store refuses (on PostgreSQL e.g. a NUL
 * character) is STORE_WRITE_REFUSED; any other failure that is not already a store code is a store error (exit 4).
 */
async function insertRow<T>(store: Store, id: string, lock: string[], fn: (t: StoreTx) => Promise<T>): Promise<T> {
  try {
    return await store.tx(fn, { lock });
  } catch (e) {
    if (isHandoffError(e)) throw e;
    if (isConstraintViolation(e))
      throw storeWriteRefused(store.location, `the dispatch row of ${id}`, (e as Error).message);
    throw storeUnreadable(store.location, `the dispatch row could not be inserted: ${(e as Error).message}`);
  }
}

/** A store call whose COMMIT got no answer (pg-store.ts): the row may or may not exist. */
const isUnknownOutcome = (e: unknown): e is HandoffError => isHandoffError(e) && e.data.outcome === 'unknown';

function blockInfo(row: HandoffRow, req: DispatchRequest, r: Resolved): BlockInfo {
  return {
    contractId: row.contract_id,
    agentId: row.agent_id,
    handoffId: row.id,
    workspace: row.workspace,
    kind: req.kind,
    planTaskId: req.planTaskId,
    parent: r.parent && { id: r.parent.id, contractId: r.parent.contract_id, state: r.parent.agent_state },
    brief: r.brief,
    consolidation: req.consolidation,
    requireReceipt: req.requireReceipt,
    verification: req.verification,
    checks: req.checks,
    goal: req.goal,
    acceptance: readStoredJson(row.acceptance_json, acceptanceColumn) ?? [],
    canWrite: req.canWrite,
    requireApproval: req.requireApproval,
  };
}
