/**
 * The `handoffs` repository. SQL lives only under src/store/.
 *
 * Exported API (every function takes a `Db` from src/store/db.ts; see that file for openProbe/openReader/openWriter
 * and writeTx; none of these functions creates or migrates the store):
 *
 *   type HandoffRow, type CutReason         the row (handoff-row.ts); `require_receipt` is 0 on a version-1 store
 *   CLOSING_STATES, isClosedState(state)     the five closing states; a row in one of them is closed (spent)
 *   exposeHandoff(row, withEnvelope?)        the row as exposed in JSON
 *   getHandoffByContractId(db, contractId)   HandoffRow | undefined (undefined too when the table does not exist)
 *   getHandoffById(db, id)                   HandoffRow | undefined
 *   followChain(db, row)                     [row, …, live tip]; CHAIN_TOO_LONG / CHAIN_BROKEN (exit 4)
 *   walkBack(db, row), chainRoot(db, row)    [row, …, root] / the root
 *   wholeChain(db, row)                      root → tip; chainContractIds(db, row): their contract ids
 *   planTaskBinding(db, tip)                 the tip's plan_task_id, else the nearest ancestor's; null = unbound
 *   spentProbe(db, contractIds)              Map contract_id → agent_state, for the ids that have a row
 *   insertContinuation(db, parent, newContractId, seedJson)
 *                                            the continuation link row in its own IMMEDIATE transaction (or the caller's);
 *                                            undefined when the parent already has a link; CHAIN_TOO_LONG when the
 *                                            link would be the chain's 65th row
 *   mirrorEnvelope(db, contractId, json, rev)
 *                                            the guarded mirror UPDATE in its own transaction: 'mirrored' | 'superseded' |
 *                                            'no_row' | 'closed'
 */
import { guard, hasTable, writeTx, type Db } from './db.js';
import { chainTooLong, MAX_CHAIN_ROWS, walkBack } from './chain.js';
import { mirrorMiss, toHandoffRow, type HandoffRow, type MirrorOutcome } from './handoff-row.js';

export { exposeHandoff } from './handoff-row.js';
export type { HandoffRow, MirrorOutcome } from './handoff-row.js';
export { chainContractIds, chainRoot, followChain, planTaskBinding, walkBack, wholeChain } from './chain.js';

export const nowIso = (): string => new Date().toISOString();

export function getHandoffByContractId(db: Db, contractId: string): HandoffRow | undefined {
  if (!hasTable(db, 'handoffs')) return undefined;
  return guard(db, () => {
    const raw = db.prepare('SELECT * FROM handoffs WHERE contract_id = ?').get(contractId) as
      Record<string, unknown> | undefined;
    return raw === undefined ? undefined : toHandoffRow(raw);
  });
}

export function getHandoffById(db: Db, id: number): HandoffRow | undefined {
  if (!hasTable(db, 'handoffs')) return undefined;
  return guard(db, () => {
    const raw = db.prepare('SELECT * FROM handoffs WHERE id = ?').get(id) as Record<string, unknown> | undefined;
    return raw === undefined ? undefined : toHandoffRow(raw);
  });
}

/** contract_id → agent_state for the given ids that have a row (the drafts' spent/live probe). */
export function spentProbe(db: Db, contractIds: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  if (contractIds.length === 0 || !hasTable(db, 'handoffs')) return out;
  return guard(db, () => {
    const rows = db
      .prepare('SELECT contract_id, agent_state FROM handoffs WHERE contract_id IN (SELECT value FROM json_each(?))')
      .all(JSON.stringify(contractIds)) as { contract_id: string; agent_state: string }[];
    for (const r of rows) out.set(r.contract_id, r.agent_state);
    return out;
  });
}

/**
 * Opens the continuation link after `parent` (a closed live tip). Inherits the parent's bindings as stored
 * now (re-read inside the transaction). ON CONFLICT DO NOTHING: undefined when the parent already has a link.
 */
export function insertContinuation(
  db: Db,
  parent: HandoffRow,
  newContractId: string,
  seedJson: string,
): HandoffRow | undefined {
  return writeTx(db, () => {
    if (walkBack(db, parent).length >= MAX_CHAIN_ROWS) throw chainTooLong(parent.contract_id);
    const now = nowIso();
    const raw = db
      .prepare(
        `INSERT INTO handoffs (contract_id, agent_id, workspace, agent_state, cut_reason, raw_handoff_json, kind,
                               plan_task_id, parent_handoff_id, brief_id, continues_handoff_id, harness_id, goal,
                               consolidation, require_receipt, verification, checks_json, can_write_json,
                               acceptance_json, require_approval_json, created_at, updated_at)
         SELECT @contract_id, agent_id, workspace, 'DISPATCHED', 'never_finalized', @seed, kind,
                plan_task_id, parent_handoff_id, brief_id, id, harness_id, goal,
                consolidation, require_receipt, verification, checks_json, can_write_json, acceptance_json,
                require_approval_json, @now, @now
           FROM handoffs WHERE id = @parent_id
         ON CONFLICT DO NOTHING
         RETURNING *`,
      )
      .get({ contract_id: newContractId, seed: seedJson, now, parent_id: parent.id }) as
      Record<string, unknown> | undefined;
    return raw === undefined ? undefined : toHandoffRow(raw);
  });
}

/**
 * Copies revision `rev` of a saved draft onto its row while the row is DISPATCHED or IN_PROGRESS and holds an older
 * revision; never creates or closes a row.
 */
export function mirrorEnvelope(db: Db, contractId: string, json: string, rev: number): MirrorOutcome {
  if (!hasTable(db, 'handoffs')) return 'no_row';
  // A row's revision only grows: one already at `rev` or later needs no write lock (a hundred parallel writers'
  // mirrors then skip the file's one write lock instead of queueing on it).
  const seen = guard(
    db,
    () =>
      db.prepare('SELECT mirror_rev FROM handoffs WHERE contract_id = ?').get(contractId) as
        { mirror_rev: number } | undefined,
  );
  if (seen !== undefined && seen.mirror_rev >= rev) return 'superseded';
  return relaxedCommit(db, () => mirrorTx(db, contractId, json, rev));
}

/**
 * Runs `fn`'s transaction with `synchronous = NORMAL`, then restores the connection's level. The mirror's commit is
 * not fsynced: the draft it copies is already fsynced, WAL keeps the commit against a killed process, and an
 * operating-system crash can only leave the row a few mirrors behind its draft, which the next write re-mirrors (as
 * after a write killed between its draft and its mirror). Inside a caller's open transaction the level cannot
 * change, and the commit is the caller's.
 */
function relaxedCommit<T>(db: Db, fn: () => T): T {
  if (db.inTransaction) return fn();
  const level = db.pragma('synchronous', { simple: true }) as number;
  db.pragma('synchronous = NORMAL');
  try {
    return fn();
  } finally {
    db.pragma(`synchronous = ${level}`);
  }
}

function mirrorTx(db: Db, contractId: string, json: string, rev: number): MirrorOutcome {
  return writeTx(db, () => {
    const updated = db
      .prepare(
        `UPDATE handoffs SET raw_handoff_json = @json, updated_at = @now, mirror_rev = @rev
          WHERE contract_id = @id AND agent_state IN ('DISPATCHED','IN_PROGRESS') AND mirror_rev < @rev
         RETURNING id`,
      )
      .get({ json, now: nowIso(), id: contractId, rev });
    if (updated !== undefined) return 'mirrored';
    return mirrorMiss(
      db.prepare('SELECT mirror_rev FROM handoffs WHERE contract_id = ?').get(contractId) as
        { mirror_rev: number } | undefined,
      rev,
    );
  });
}
