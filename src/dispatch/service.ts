/**
 * `contract dispatch` (dispatch-and-gate.md §1.3): every check first, nothing written when one fails; the DB file
 * is created only after all checks passed; then the draft and the DISPATCHED row. A failed insert removes the
 * draft again, so no half-born contract remains.
 */
import { unlinkSync } from 'node:fs';
import { EXIT, HandoffError, isHandoffError } from '../errors.js';
import { initialEnvelope, type JsonObject } from '../envelope/vocabulary.js';
import { mintAgentId, mintDraftId } from '../ids.js';
import { draftFile, type Env } from '../paths.js';
import { draftEntryExists, saveDraft } from '../drafts/files.js';
import { LockSet } from '../drafts/lock.js';
import { acceptanceColumn, readStoredJson } from '../store/stored-json.js';
import { closeDb, dbFileOf, openWriter, writeTx, type Db } from '../store/db.js';
import { findBrief, listAcs } from '../store/briefs.js';
import { getHandoffById, isClosedState, nowIso, type HandoffRow } from '../store/handoffs.js';
import { insertBirthRow, rowsWithHarnessId } from '../store/dispatch-rows.js';
import { harnessInUse } from './harness.js';
import { storeUnreadable } from '../store/store-errors.js';
import { closeRules, renderContractBlock, type AcceptanceItem, type BlockInfo, type CloseRule } from './block.js';
import type { DispatchRequest } from './options.js';

export interface DispatchResult {
  row: HandoffRow;
  block: BlockInfo;
  rules: CloseRule[];
  text: string;
}

interface Resolved {
  brief?: { id: number; name: string };
  briefAcs: AcceptanceItem[];
  parent?: HandoffRow;
}

const briefNotFound = (name: string, workspace: string): HandoffError =>
  new HandoffError(
    'BRIEF_NOT_FOUND',
    EXIT.NOT_FOUND,
    `no brief ${JSON.stringify(name)} in workspace ${JSON.stringify(workspace)}`,
    { brief: name, workspace },
    'Create it with handoff brief add, or check --brief and --workspace.',
  );

const parentNotFound = (id: number): HandoffError =>
  new HandoffError('PARENT_HANDOFF_NOT_FOUND', EXIT.NOT_FOUND, `--parent-handoff-id ${id} names no handoff row`, { parent_handoff_id: id });

/** The store checks (§1.3): brief, parent, harness id. `db` null = no DB file (nothing is created). */
function checkAgainstStore(db: Db | null, req: DispatchRequest): Resolved {
  const out: Resolved = { briefAcs: [] };
  if (req.brief !== undefined) {
    const brief = db === null ? undefined : findBrief(db, req.workspace, req.brief);
    if (brief === undefined) throw briefNotFound(req.brief, req.workspace);
    out.brief = { id: brief.id, name: brief.name };
    out.briefAcs = listAcs(db as Db, brief.id).map((a) => ({ ac_id: a.ac_id, description: a.description }));
  }
  if (req.parentHandoffId !== undefined) {
    const parent = db === null ? undefined : getHandoffById(db, req.parentHandoffId);
    if (parent === undefined) throw parentNotFound(req.parentHandoffId);
    if (req.kind === 'verifier' && !isClosedState(parent.agent_state)) {
      throw new HandoffError(
        'PARENT_NOT_CLOSED',
        EXIT.REJECTED,
        `parent handoff ${parent.id} (contract ${parent.contract_id}) is ${parent.agent_state}, not closed; a verifier is dispatched for a finalized row`,
        { parent_handoff_id: parent.id, agent_state: parent.agent_state },
      );
    }
    out.parent = parent;
  }
  if (req.harnessId !== undefined && db !== null) {
    const holders = rowsWithHarnessId(db, req.harnessId);
    if (holders.length > 0) throw harnessInUse(req.harnessId, [...new Set(holders.map((r) => r.contract_id))]);
  }
  return out;
}

function removeDraft(env: Env, draftId: string, cwd: string): void {
  try {
    unlinkSync(draftFile(env, draftId, cwd));
  } catch {
    // already gone
  }
}

export async function dispatch(req: DispatchRequest, env: Env, cwd: string): Promise<DispatchResult> {
  // With a DB file, the checks read it through the writer (which migrates an older file first). Without one,
  // the checks run against "no store" and the file is created only after they all passed.
  let db = openWriter(env, cwd, { create: false });
  const locks = new LockSet(env, cwd);
  let draftId: string | undefined;
  let done = false;
  try {
    checkAgainstStore(db, req);
    db ??= openWriter(env, cwd, { create: true }) as Db;
    const agentId = req.agentId ?? mintAgentId();
    for (;;) {
      draftId = mintDraftId(agentId);
      await locks.add(draftId);
      if (!draftEntryExists(env, draftId, cwd)) break; // never over an existing file (a 48-bit collision: re-mint)
    }
    const envelope: JsonObject = initialEnvelope(agentId);
    saveDraft(env, draftId, envelope, cwd);
    const id = draftId;
    const writer = db;
    const { row, resolved } = insertRow(writer, () => {
      // Re-checked under the write lock: a concurrent dispatch may have taken the harness id meanwhile.
      const resolved = checkAgainstStore(writer, req);
      const acceptance = [...resolved.briefAcs, ...req.acceptance.map((d) => ({ ac_id: null, description: d }))];
      const row = insertBirthRow(writer, {
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
        harness_id: req.harnessId ?? null,
        can_write_json: req.canWrite.length > 0 ? JSON.stringify(req.canWrite) : null,
        acceptance_json: acceptance.length > 0 ? JSON.stringify(acceptance) : null,
        now: nowIso(),
      });
      return { row, resolved };
    });
    done = true;
    const block = blockInfo(row, req, resolved);
    const rules = closeRules(block);
    return { row, block, rules, text: renderContractBlock(block, rules) };
  } catch (e) {
    if (draftId !== undefined && !done) removeDraft(env, draftId, cwd);
    throw e;
  } finally {
    locks.releaseAll(!done);
    closeDb(db);
  }
}

/** The insert's transaction; any failure that is not already a named refusal is a store error (exit 4). */
function insertRow<T>(db: Db, fn: () => T): T {
  try {
    return writeTx(db, fn);
  } catch (e) {
    if (isHandoffError(e)) throw e;
    throw storeUnreadable(dbFileOf(db), `the dispatch row could not be inserted: ${(e as Error).message}`);
  }
}

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
    goal: req.goal,
    acceptance: readStoredJson(row.acceptance_json, acceptanceColumn) ?? [],
    canWrite: req.canWrite,
  };
}
