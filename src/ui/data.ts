/**
 * What `handoff ui` shows, read through the Store interface (either backend) and never written: the workspace's
 * chains, one chain with its envelopes, merge patches, receipts and evidence, and the pending approvals. Every read
 * opens the store as a reader, so a page left open never creates a store or holds it.
 */
import { computeFingerprint, storeFiles, type TreeFingerprint } from '../receipts/fingerprint.js';
import { chainDiff, type DiffStep } from '../render/chain-diff.js';
import { HandoffError } from '../errors.js';
import type { Env } from '../paths.js';
import { livenessOf, type Liveness } from '../store/handoff-list.js';
import { exposeHandoff, type HandoffRow } from '../store/handoff-row.js';
import type { ReceiptRow } from '../store/receipt-row.js';
import type { Store } from '../store/store.js';

/** How many of the workspace's newest rows the list reads; their chains are what it shows. */
const LIST_ROWS = 200;
/** How much of a receipt's stored output the page shows: the end, where a failure usually is. */
export const TAIL_CHARS = 4000;
/** A DISPATCHED row not written for this long counts as cut, as `contract list --cut` says by default. */
const STALE_MS = 2 * 60 * 60 * 1000;

export interface ChainSummary {
  live_contract_id: string;
  root_contract_id: string;
  links: number;
  goal: string | null;
  agent_state: string;
  liveness: Liveness | null;
  cut_reason: string | null;
  degraded: boolean;
  created_at: string;
  updated_at: string;
}

export interface ReadContext {
  env: Env;
  cwd: string;
  workspace: string;
}

async function read<T>(ctx: ReadContext, fn: (s: Store) => Promise<T>, absent: () => T): Promise<T> {
  const { withStore } = await import('../store/open-store.js');
  return withStore(ctx.env, ctx.cwd, 'reader', fn, absent);
}

const staleBefore = (): string => new Date(Date.now() - STALE_MS).toISOString();

function parseEnvelope(json: string): unknown {
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return {};
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The gate's capture marks a turn that ended without a finalize as degraded in its envelope. */
const degradedOf = (envelope: unknown): boolean => isObject(envelope) && envelope.degraded === true;

/** The workspace's chains, newest first by their live tip: one entry per chain among its newest rows. */
export function listChains(ctx: ReadContext): Promise<ChainSummary[]> {
  return read(
    ctx,
    async (s) => {
      const rows = await s.listHandoffs({ workspace: ctx.workspace, limit: LIST_ROWS });
      const continued = new Set(rows.map((r) => r.continues_handoff_id).filter((id) => id !== null));
      const before = staleBefore();
      const out: ChainSummary[] = [];
      for (const tip of rows) {
        if (continued.has(tip.id)) continue;
        const back = await s.walkBack(tip);
        const root = back[back.length - 1];
        out.push({
          live_contract_id: tip.contract_id,
          root_contract_id: root.contract_id,
          links: back.length,
          goal: root.goal ?? tip.goal,
          agent_state: tip.agent_state,
          liveness: livenessOf(tip, before),
          cut_reason: tip.cut_reason,
          degraded: back.some((r) => degradedOf(parseEnvelope(r.raw_handoff_json))),
          created_at: root.created_at,
          updated_at: tip.updated_at,
        });
      }
      return out;
    },
    () => [],
  );
}

export interface ReceiptView {
  receipt_id: string;
  contract_id: string;
  command: string;
  exit_code: number | null;
  signal: string | null;
  timed_out: boolean;
  outcome: string;
  started_at: string;
  duration_ms: number;
  /** fresh / stale against the work tree now; unknown when the receipt has no tree fingerprint. */
  freshness: 'fresh' | 'stale' | 'unknown';
  stdout_tail: string | null;
  stderr_tail: string | null;
  stdout_bytes: number;
  stderr_bytes: number;
  /** An output kept outside the row (a file or a store blob): shown by `handoff evidence show`. */
  stdout_elsewhere: boolean;
  stderr_elsewhere: boolean;
}

const tail = (text: string | null): string | null =>
  text === null ? null : text.length > TAIL_CHARS ? text.slice(text.length - TAIL_CHARS) : text;

/**
 * Freshness as finalize judges it (src/receipts/fingerprint.ts isStale), with the work tree's fingerprint taken once
 * per directory for the whole chain rather than once per receipt.
 */
function freshnessJudge(env: Env, cwd: string): (r: ReceiptRow) => ReceiptView['freshness'] {
  const now = new Map<string, TreeFingerprint | null>();
  return (r) => {
    if (r.tree_fingerprint === null) return 'unknown';
    if (!now.has(r.cwd)) now.set(r.cwd, computeFingerprint(r.cwd, env, storeFiles(env, cwd)));
    const tree = now.get(r.cwd) ?? null;
    return tree !== null && tree.gitHead === r.git_head && tree.treeFingerprint === r.tree_fingerprint
      ? 'fresh'
      : 'stale';
  };
}

function receiptView(r: ReceiptRow, freshness: ReceiptView['freshness']): ReceiptView {
  return {
    receipt_id: r.receipt_id,
    contract_id: r.contract_id,
    command: r.command,
    exit_code: r.exit_code,
    signal: r.signal,
    timed_out: r.timed_out === 1,
    outcome: r.outcome,
    started_at: r.started_at,
    duration_ms: r.duration_ms,
    freshness,
    stdout_tail: tail(r.stdout_text),
    stderr_tail: tail(r.stderr_text),
    stdout_bytes: r.stdout_bytes,
    stderr_bytes: r.stderr_bytes,
    stdout_elsewhere: r.stdout_path !== null,
    stderr_elsewhere: r.stderr_path !== null,
  };
}

/** Test changes: a column on the row where the store keeps one, else what the envelope's verification declares. */
function testChangesOf(row: HandoffRow, envelope: unknown): unknown {
  const column = (row as unknown as Record<string, unknown>).test_changes_json;
  if (typeof column === 'string') return parseEnvelope(column);
  const report = isObject(envelope) ? envelope.evidence_report : undefined;
  const verification = isObject(report) ? report.verification : undefined;
  return isObject(verification) && verification.test_changes !== undefined ? verification.test_changes : null;
}

export interface ChainView {
  workspace: string;
  live_contract_id: string;
  links: Record<string, unknown>[];
  steps: DiffStep[];
  receipts: ReceiptView[];
}

const chainNotFound = (id: string): HandoffError =>
  new HandoffError('ROW_NOT_FOUND', `no handoff row for ${id} in this workspace's store`, { contract_id: id });

/** One chain, root → tip: each link's row and envelope, the merge patch from the link before, receipts, evidence. */
export async function chainView(ctx: ReadContext, contractId: string): Promise<ChainView> {
  const found = await read<ChainView | undefined>(
    ctx,
    async (s) => {
      const row = await s.getHandoffByContractId(contractId);
      if (row === undefined || row.workspace !== ctx.workspace) return undefined;
      const chain = await s.wholeChain(row);
      const envelopes = chain.map((r) => parseEnvelope(r.raw_handoff_json));
      const before = staleBefore();
      const links: Record<string, unknown>[] = [];
      for (const [i, r] of chain.entries()) {
        links.push({
          ...exposeHandoff(r, true),
          liveness: livenessOf(r, before),
          degraded: degradedOf(envelopes[i]),
          test_changes: testChangesOf(r, envelopes[i]),
          evidence: await s.listEvidence({ contractId: r.contract_id }),
        });
      }
      const receipts = await s.listReceiptsByContracts(chain.map((r) => r.contract_id));
      const judge = freshnessJudge(ctx.env, ctx.cwd);
      return {
        workspace: ctx.workspace,
        live_contract_id: chain[chain.length - 1].contract_id,
        links,
        steps: chainDiff(chain, envelopes),
        receipts: receipts.map((r) => receiptView(r, judge(r))),
      };
    },
    () => undefined,
  );
  if (found === undefined) throw chainNotFound(contractId);
  return found;
}

export interface PendingApproval {
  id: string;
  exact_content: string;
  fingerprint: string;
  created_at: string;
  agent_id: string | null;
  contract_id: string | null;
  /**
   * What the requesting contract's envelope says of the risk (approval_request.risk, when its approval_id is this
   * approval's), as written; null if nothing.
   */
  risk: unknown;
  /** The requesting contract's goal and state, when it has a row. */
  contract_goal: string | null;
  contract_state: string | null;
}

/** The workspace's pending approvals, newest first, each with its requesting contract. */
export function pendingApprovals(ctx: ReadContext): Promise<PendingApproval[]> {
  return read(
    ctx,
    async (s) => {
      const rows = await s.listApprovals({ status: 'pending', workspace: ctx.workspace, limit: 100 });
      const out: PendingApproval[] = [];
      for (const a of rows) {
        const contract = a.contract_id === null ? undefined : await s.getHandoffByContractId(a.contract_id);
        const envelope = contract === undefined ? undefined : parseEnvelope(contract.raw_handoff_json);
        const request = isObject(envelope) ? envelope.approval_request : undefined;
        out.push({
          id: a.id,
          exact_content: a.exact_content,
          fingerprint: a.fingerprint,
          created_at: a.created_at,
          agent_id: a.agent_id,
          contract_id: a.contract_id,
          // Only the request this approval answers: a contract may have asked for another one since.
          risk: isObject(request) && request.approval_id === a.id && request.risk !== undefined ? request.risk : null,
          contract_goal: contract?.goal ?? null,
          contract_state: contract?.agent_state ?? null,
        });
      }
      return out;
    },
    () => [],
  );
}
