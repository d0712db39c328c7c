/**
 * Everything the draft verbs need from the store, in one place, over the Store
 * interface (src/store/store.ts), so one code path serves SQLite and PostgreSQL. The store modules are imported
 * dynamically, and on SQLite only when the DB file exists, so a call without a store never loads SQLite (start-up
 * budget). Reads use one probe for the whole call, opened on first use; the continuation insert and the mirror open
 * the normal writer (which migrates an older store first) only when they actually write.
 */
import { isHandoffError } from '../errors.js';
import type { Env } from '../paths.js';
import { mayHaveStore } from '../store/open-store.js';
import type { HandoffRow } from '../store/handoffs.js';
import type { Store, StoreReads } from '../store/store.js';
import type { FullVerdictOptions, ValidationResult } from '../validator/index.js';

export type { HandoffRow } from '../store/handoffs.js';

export type MirrorOutcome = 'mirrored' | 'no_store' | 'no_row' | 'closed' | 'store_busy' | 'store_error';

/** The verdict options a session fills in from the store: the approval lookup and the citing chain. */
export type VerdictBase = Omit<FullVerdictOptions, 'lookupApproval' | 'approvalChain'>;

export interface StoreSession {
  /** False when there is no store (no DB file; an empty PostgreSQL database): no rows, nothing spent, cross-check skipped. */
  exists(): Promise<boolean>;
  /** The row whose contract_id is `contractId`, if any. */
  row(contractId: string): Promise<HandoffRow | undefined>;
  /** Rows from `row` to the live tip, following continuation links (CHAIN_TOO_LONG / CHAIN_BROKEN, exit 4). */
  chainFrom(row: HandoffRow): Promise<HandoffRow[]>;
  /** `row` then `chainFrom`, in one round trip where the store can ([row, …, tip]; undefined without a row). */
  rowChain?(contractId: string): Promise<HandoffRow[] | undefined>;
  /** The contract ids of `row`'s whole continuation chain, root → tip (the approval binding). */
  chainIds(row: HandoffRow): Promise<string[]>;
  /** The row's plan-task binding: its own plan_task_id, else the nearest ancestor's. */
  planTaskBinding(row: HandoffRow): Promise<string | null>;
  /** The ids among `ids` whose row is in a closed-turn state. */
  spent(ids: string[]): Promise<Set<string>>;
  /**
   * The full verdict with the approval cross-check against this store (skipped without one). `chain` gives the
   * citing contract's chain ids, asked only when a cited approval resolves; omitted: not checked (`validate --file`).
   */
  verdict(envelope: unknown, options: VerdictBase, chain?: () => Promise<readonly string[]>): Promise<ValidationResult>;
  /** Commits a continuation link under `parent`; undefined when the parent already has one. */
  insertContinuation(parent: HandoffRow, newContractId: string, seedJson: string): Promise<HandoffRow | undefined>;
  /**
   * Best-effort mirror of revision `rev` of a saved envelope onto its open row; never throws. A row that already
   * reflects `rev` or a later revision (a newer write's mirror, or a finalize that read this save) counts as
   * mirrored: it holds this write.
   */
  mirror(contractId: string, json: string, rev: number): Promise<{ outcome: MirrorOutcome; message?: string }>;
  /**
   * Before the draft lock: the store is opened (PostgreSQL: connected) and its writer made ready when the schema is
   * current, so the work under the lock is a few statements. Store errors surface here, before anything is written.
   */
  prepare?(): Promise<void>;
  close(): Promise<void>;
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
export const isOpenRow = (row: HandoffRow): boolean =>
  row.agent_state === 'DISPATCHED' || row.agent_state === 'IN_PROGRESS';

/** The full verdict over `reads` (or none: the cross-check is skipped); see src/approvals/store-verdict.ts. */
async function verdictOver(
  reads: StoreReads | null,
  envelope: unknown,
  options: VerdictBase,
  where: { env: Env; cwd: string },
  chain?: () => Promise<readonly string[]>,
): Promise<ValidationResult> {
  const { storeVerdict } = await import('../approvals/store-verdict.js');
  return storeVerdict(envelope, options, reads, where, chain);
}

const NO_STORE: StoreSession = {
  exists: () => Promise.resolve(false),
  row: () => Promise.resolve(undefined),
  chainFrom: (row) => Promise.resolve([row]),
  rowChain: () => Promise.resolve(undefined),
  chainIds: (row) => Promise.resolve([row.contract_id]),
  planTaskBinding: (row) => Promise.resolve(row.plan_task_id),
  spent: () => Promise.resolve(new Set()),
  verdict: (envelope, options) => verdictOver(null, envelope, options, { env: {}, cwd: '/' }),
  insertContinuation: () => Promise.resolve(undefined),
  mirror: () => Promise.resolve({ outcome: 'no_store' }),
  close: () => Promise.resolve(),
};

/**
 * The store for one call: a no-op session when there is certainly none (SQLite without a DB file; nothing is
 * loaded). Otherwise the probe is opened on first use, so a call that fails earlier (addressing, arguments) reports
 * that failure, not a store error (the earlier failure wins).
 */
export async function openStoreSession(env: Env, cwd?: string): Promise<StoreSession> {
  if (!mayHaveStore(env, cwd)) return NO_STORE;
  const { openStore } = await import('../store/open-store.js');
  let probe: Promise<Store | null> | undefined;
  let writer: Promise<Store | null> | undefined;
  const reads = (): Promise<Store | null> => (probe ??= openStore(env, cwd, 'probe'));
  // On SQLite a write after the reads goes through the probe's own connection when the store is current (no second
  // open, no migration checks on every write); else, and on PostgreSQL without `prepare`, a writer opened as usual.
  const fromProbe = async (): Promise<Store | undefined> => {
    const p = probe === undefined ? null : await probe.catch(() => null);
    return p?.kind === 'sqlite' ? p.currentWriter?.() : undefined;
  };
  const getWriter = async (): Promise<Store | null> =>
    (writer ??= fromProbe().then((w) => w ?? openStore(env, cwd, 'writer')));
  const close = async (): Promise<void> => {
    const opened = await Promise.allSettled([probe, writer].filter((p) => p !== undefined));
    for (const o of opened) if (o.status === 'fulfilled' && o.value !== null) await o.value.close();
  };
  const session = sessionOver(reads, getWriter, close, { env, cwd: cwd ?? process.cwd() });
  session.prepare = async () => {
    const p = await reads();
    // The writer shares the probe's connections; an older schema is migrated only by a write that happens.
    // A failure here is not the write's: the writer is then opened when the mirror needs it, as without this step.
    const w = p === null || p.version === 0 ? undefined : await p.currentWriter?.().catch(() => undefined);
    if (w !== undefined) writer ??= Promise.resolve(w);
    // The cross-check's module, loaded now rather than under the lock.
    await import('../approvals/store-verdict.js');
  };
  return session;
}

/**
 * A session over a store the caller holds (`reads` answers null when there is none); `close` is what closing the
 * session does (finalize closes its own writer).
 */
export function sessionOver(
  reads: () => Promise<Store | null>,
  getWriter: () => Promise<Store | null>,
  close: () => Promise<void>,
  where: { env: Env; cwd: string },
): StoreSession {
  // A store of version 0 (an empty SQLite file) has no tables yet: it exists, but holds no rows.
  const rows = async (): Promise<Store | null> => {
    const s = await reads();
    return s !== null && s.version > 0 ? s : null;
  };
  return {
    exists: async () => (await reads()) !== null,
    row: async (id) => (await rows())?.getHandoffByContractId(id),
    chainFrom: async (r) => (await rows())?.followChain(r) ?? [r],
    async rowChain(id) {
      const s = await rows();
      if (s === null) return undefined;
      if (s.chainOfContract !== undefined) return s.chainOfContract(id);
      const row = await s.getHandoffByContractId(id);
      return row === undefined ? undefined : s.followChain(row);
    },
    chainIds: async (r) => (await rows())?.chainContractIds(r) ?? [r.contract_id],
    planTaskBinding: async (r) => (await rows())?.planTaskBinding(r) ?? r.plan_task_id,
    async spent(ids) {
      const s = await rows();
      const out = new Set<string>();
      if (s === null || ids.length === 0) return out;
      for (const [id, state] of await s.spentProbe(ids)) if (CLOSED_STATES.has(state)) out.add(id);
      return out;
    },
    verdict: async (envelope, options, chain) => verdictOver(await reads(), envelope, options, where, chain),
    async insertContinuation(parent, newContractId, seedJson) {
      const s = await getWriter();
      if (s === null) throw new Error('the store vanished during the call');
      return s.tx((t) => t.insertContinuation(parent, newContractId, seedJson), { lock: parent.contract_id });
    },
    async mirror(contractId, json, rev) {
      try {
        const s = await getWriter();
        if (s === null) return { outcome: 'no_store' };
        const outcome = await s.mirrorNow(contractId, json, rev);
        return { outcome: outcome === 'superseded' ? 'mirrored' : outcome };
      } catch (e) {
        if (isHandoffError(e) && e.code === 'STORE_BUSY') return { outcome: 'store_busy', message: e.message };
        return { outcome: 'store_error', message: (e as Error)?.message ?? String(e) };
      }
    },
    close,
  };
}
