/**
 * Everything the draft verbs need from the store, in one place (cli-contract-drafts.md §6.5). The store modules are
 * imported dynamically and only when the DB file exists, so a call without a store never loads SQLite (start-up
 * budget). Reads use one read-only probe connection for the whole call; the continuation insert and the mirror open
 * the normal writer (which migrates an older file first) only when they actually write.
 */
import type { ApprovalLookupResult } from '../validator/types.js';
import { isHandoffError } from '../errors.js';
import { storeExists, type Env } from '../paths.js';
import type { Db } from '../store/db.js';
import type { HandoffRow } from '../store/handoffs.js';

export type { HandoffRow } from '../store/handoffs.js';

export type MirrorOutcome = 'mirrored' | 'no_store' | 'no_row' | 'closed' | 'store_busy' | 'store_error';

export interface StoreSession {
  /** False when the DB file does not exist: no rows, nothing spent, cross-check skipped. */
  readonly exists: boolean;
  /** The row whose contract_id is `contractId`, if any. */
  row(contractId: string): HandoffRow | undefined;
  /** Rows from `row` to the live tip, following continuation links (CHAIN_TOO_LONG / CHAIN_BROKEN, exit 4). */
  chainFrom(row: HandoffRow): HandoffRow[];
  /** The contract ids of `row`'s whole continuation chain, root → tip (the approval binding, amendments-2.md §H1). */
  chainIds(row: HandoffRow): string[];
  /** The row's plan-task binding: its own plan_task_id, else the nearest ancestor's (store-and-finalize.md §6.3). */
  planTaskBinding(row: HandoffRow): string | null;
  /** The ids among `ids` whose row is in a closed-turn state (§7.2). */
  spent(ids: string[]): Set<string>;
  /** The approval lookup for the cross-check; undefined when there is no store (the check is skipped). */
  lookupApproval(): ((id: string) => ApprovalLookupResult) | undefined;
  /** Commits a continuation link under `parent`; undefined when the parent already has one. */
  insertContinuation(parent: HandoffRow, newContractId: string, seedJson: string): HandoffRow | undefined;
  /** Best-effort mirror of a saved envelope onto its open row (§10.3); never throws. */
  mirror(contractId: string, json: string): { outcome: MirrorOutcome; message?: string };
  close(): void;
}

/** Row states in which a turn is closed (a write opens a continuation; the draft is spent). */
export const CLOSED_STATES: ReadonlySet<string> = new Set([
  'APPROVAL_REQUEST',
  'COMPLETE',
  'BLOCKED',
  'NEEDS_INPUT',
  'NEEDS_VERIFICATION',
]);
export const isClosedRow = (row: HandoffRow): boolean => CLOSED_STATES.has(row.agent_state);
export const isOpenRow = (row: HandoffRow): boolean => row.agent_state === 'DISPATCHED' || row.agent_state === 'IN_PROGRESS';

const NO_STORE: StoreSession = {
  exists: false,
  row: () => undefined,
  chainFrom: (row) => [row],
  chainIds: (row) => [row.contract_id],
  planTaskBinding: (row) => row.plan_task_id,
  spent: () => new Set(),
  lookupApproval: () => undefined,
  insertContinuation: () => undefined,
  mirror: () => ({ outcome: 'no_store' }),
  close: () => undefined,
};

/**
 * The store for one call: a no-op session when the DB file is absent (SQLite is then never loaded). With a file, the
 * store modules are imported now but the probe connection is opened only on first use, so a call that fails earlier
 * (addressing, arguments) reports that failure, not a store error (§3 precedence).
 */
export async function openStoreSession(env: Env, cwd?: string): Promise<StoreSession> {
  if (!storeExists(env, cwd)) return NO_STORE;
  const dbm = await import('../store/db.js');
  const repo = await import('../store/handoffs.js');
  let probe: Db | null | undefined;
  let hasRows = false;
  let writer: Db | null | undefined;
  const getProbe = (): Db | null => {
    if (probe === undefined) {
      probe = dbm.openProbe(env, cwd);
      hasRows = probe !== null && dbm.hasTable(probe, 'handoffs');
    }
    return probe;
  };
  const getWriter = (): Db | null => {
    if (writer === undefined) writer = dbm.openWriter(env, cwd, { create: false });
    return writer;
  };
  const row = (id: string): HandoffRow | undefined => {
    const db = getProbe();
    return db !== null && hasRows ? dbm.guard(db, () => repo.getHandoffByContractId(db, id)) : undefined;
  };
  return {
    exists: true,
    row,
    chainFrom(r) {
      const db = getProbe();
      return db === null ? [r] : dbm.guard(db, () => repo.followChain(db, r));
    },
    chainIds(r) {
      const db = getProbe();
      return db === null ? [r.contract_id] : dbm.guard(db, () => repo.chainContractIds(db, r));
    },
    planTaskBinding(r) {
      const db = getProbe();
      return db === null ? r.plan_task_id : dbm.guard(db, () => repo.planTaskBinding(db, r));
    },
    spent(ids) {
      const db = getProbe();
      const out = new Set<string>();
      if (db === null || !hasRows) return out;
      for (const [id, state] of repo.spentProbe(db, ids)) if (repo.isClosedState(state)) out.add(id);
      return out;
    },
    lookupApproval() {
      // Lazy: the store is read only when the cross-check actually has an approval id to look up.
      let lookup: ((id: string) => ApprovalLookupResult) | undefined;
      return (id) => {
        if (lookup === undefined) {
          const db = getProbe();
          lookup = db === null ? () => ({ found: false }) : repo.approvalLookup(db);
        }
        return lookup(id);
      };
    },
    insertContinuation(parent, newContractId, seedJson) {
      const db = getWriter();
      if (db === null) throw new Error('the store file vanished during the call');
      return repo.insertContinuation(db, parent, newContractId, seedJson);
    },
    mirror(contractId, json) {
      try {
        const db = getWriter();
        if (db === null) return { outcome: 'no_store' };
        return { outcome: repo.mirrorEnvelope(db, contractId, json) };
      } catch (e) {
        if (isHandoffError(e) && e.code === 'STORE_BUSY') return { outcome: 'store_busy', message: e.message };
        return { outcome: 'store_error', message: (e as Error)?.message ?? String(e) };
      }
    },
    close() {
      if (probe) dbm.closeDb(probe);
      if (writer) dbm.closeDb(writer);
    },
  };
}
