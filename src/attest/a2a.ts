/**
 * `attest export --format a2a`: a handoff chain as A2A v1 Tasks, JSON Lines, one Task a line, the chain's root first.
 * Each turn (row) is a Task: its contract id the Task's id, the root's contract id the context id every turn shares,
 * its state mapped as docs/attest.md's table says, spelled as A2A v1's JSON spells its TaskState enum
 * (`TASK_STATE_…`, the protobuf names). Its artifacts: the envelope as one data part, then each receipt of the turn
 * (recorded under its contract or cited by its envelope), each evidence blob it cites, the approval it cites. Its
 * metadata, under the one key `handoff`, ties it to the signed export: the payload digest of the turn's handoff
 * statement, the same digest `attest export` writes for that line and lists in its head. Read-only on the store; no
 * key is needed (nothing is signed); the file is written whole or not at all.
 */
import { resolve } from 'node:path';
import { HandoffError } from '../errors.js';
import type { Env } from '../paths.js';
import type { ApprovalRow } from '../store/approvals.js';
import type { HandoffRow } from '../store/handoff-row.js';
import type { ReceiptRow } from '../store/receipt-row.js';
import type { StoreReads } from '../store/store.js';
import { citedReceipts } from '../receipts/required.js';
import { citedApprovalKey } from '../validator/index.js';
import { handoffLines, writeWhole } from './export.js';
import { approvalStatement, envelopeDigest, HANDOFF_PREDICATE, receiptStatement, type CitedBlob } from './statement.js';

/** A2A v1 TaskState, as its JSON spells it (the protobuf enum's names). */
export type A2aTaskState =
  | 'TASK_STATE_SUBMITTED'
  | 'TASK_STATE_WORKING'
  | 'TASK_STATE_COMPLETED'
  | 'TASK_STATE_FAILED'
  | 'TASK_STATE_INPUT_REQUIRED'
  | 'TASK_STATE_AUTH_REQUIRED';

/** A Part with exactly one content field: structured data (JSON) or text. */
export type A2aPart = { data: unknown; mediaType: string } | { text: string; mediaType: string };

export interface A2aArtifact {
  artifactId: string;
  name: string;
  description?: string;
  parts: A2aPart[];
  metadata?: Record<string, unknown>;
}

export interface A2aMessage {
  messageId: string;
  contextId: string;
  taskId: string;
  role: 'ROLE_AGENT';
  parts: A2aPart[];
}

export interface A2aTask {
  id: string;
  contextId: string;
  status: { state: A2aTaskState; timestamp: string; message?: A2aMessage };
  artifacts: A2aArtifact[];
  metadata: { handoff: Record<string, unknown> };
}

const JSON_MEDIA = 'application/json';

/** The row's mapped state; `degraded` for a turn the stop gate captured and closed unfinished (failed). */
export function a2aState(row: Pick<HandoffRow, 'agent_state' | 'cut_reason'>): {
  state: A2aTaskState;
  degraded: boolean;
} {
  // A gate capture (cut_reason backstop_capture, the envelope marked degraded) is how a turn that stopped without a
  // close ends: the row stays IN_PROGRESS, but the turn is over (contract list calls it cut).
  if (row.cut_reason === 'backstop_capture') return { state: 'TASK_STATE_FAILED', degraded: true };
  switch (row.agent_state) {
    case 'DISPATCHED':
      return { state: 'TASK_STATE_SUBMITTED', degraded: false };
    case 'IN_PROGRESS':
      return { state: 'TASK_STATE_WORKING', degraded: false };
    case 'COMPLETE':
    case 'NEEDS_VERIFICATION':
      return { state: 'TASK_STATE_COMPLETED', degraded: false };
    case 'NEEDS_INPUT':
      return { state: 'TASK_STATE_INPUT_REQUIRED', degraded: false };
    case 'APPROVAL_REQUEST':
      return { state: 'TASK_STATE_AUTH_REQUIRED', degraded: false };
    case 'BLOCKED':
      return { state: 'TASK_STATE_FAILED', degraded: false };
  }
}

/** What one turn's Task is made of, read from the store. */
export interface TurnFacts {
  row: HandoffRow;
  /** The chain's root contract id: the Task's context id. */
  root: string;
  link: number;
  continues: string | null;
  /** The payload digest of the turn's handoff statement; null while the turn is open (no statement yet). */
  statementSha256: string | null;
  receipts: { row: ReceiptRow; cited: boolean }[];
  blobs: readonly CitedBlob[];
  approval?: ApprovalRow;
}

const parseEnvelope = (row: HandoffRow): unknown => {
  try {
    return JSON.parse(row.raw_handoff_json) as unknown;
  } catch {
    return null;
  }
};

const fieldOf = (v: unknown, ...path: string[]): unknown => {
  let cur = v;
  for (const k of path) {
    if (typeof cur !== 'object' || cur === null || Array.isArray(cur) || !Object.hasOwn(cur, k)) return undefined;
    cur = (cur as Record<string, unknown>)[k];
  }
  return cur;
};

function receiptArtifact(r: ReceiptRow, cited: boolean): A2aArtifact {
  const p = receiptStatement(r).predicate;
  return {
    artifactId: `receipt:${r.receipt_id}`,
    name: `receipt ${r.receipt_id}`,
    description: r.command,
    parts: [{ data: p.receipt, mediaType: JSON_MEDIA }],
    metadata: { handoff: { kind: 'receipt', cited, result: p.result, row_sha256: r.row_sha256 } },
  };
}

function blobArtifacts(blobs: readonly CitedBlob[]): A2aArtifact[] {
  // One artifact per blob (its bytes' sha256), every path that cites it listed.
  const bySha = new Map<string, string[]>();
  for (const b of blobs) {
    const paths = bySha.get(b.sha256) ?? [];
    if (!paths.includes(b.path)) paths.push(b.path);
    bySha.set(b.sha256, paths);
  }
  return [...bySha].map(([sha256, paths]) => ({
    artifactId: `evidence:${sha256}`,
    name: paths[0],
    parts: [{ data: { sha256, paths }, mediaType: JSON_MEDIA }],
    metadata: { handoff: { kind: 'evidence', sha256 } },
  }));
}

function approvalArtifact(a: ApprovalRow): A2aArtifact {
  return {
    artifactId: `approval:${a.id}`,
    name: `approval ${a.id}`,
    parts: [{ data: approvalStatement(a).predicate, mediaType: JSON_MEDIA }],
    metadata: { handoff: { kind: 'approval', status: a.status, fingerprint: a.fingerprint } },
  };
}

/** The agent's word to whoever must act, on a Task that waits for input or an approval. */
function statusMessage(t: TurnFacts, state: A2aTaskState, envelope: unknown): A2aMessage | undefined {
  if (state !== 'TASK_STATE_INPUT_REQUIRED' && state !== 'TASK_STATE_AUTH_REQUIRED') return undefined;
  const parts: A2aPart[] = [];
  const next = fieldOf(envelope, 'agent_status', 'next_action');
  if (typeof next === 'string' && next.trim() !== '') parts.push({ text: next, mediaType: 'text/plain' });
  const request = fieldOf(envelope, 'approval_request');
  if (state === 'TASK_STATE_AUTH_REQUIRED' && request !== undefined && request !== null)
    parts.push({ data: request, mediaType: JSON_MEDIA });
  if (parts.length === 0) return undefined;
  const id = t.row.contract_id;
  return { messageId: `${id}:status`, contextId: t.root, taskId: id, role: 'ROLE_AGENT', parts };
}

export function taskOf(t: TurnFacts): A2aTask {
  const { row } = t;
  const envelope = parseEnvelope(row);
  const { state, degraded } = a2aState(row);
  const message = statusMessage(t, state, envelope);
  const artifacts: A2aArtifact[] = [
    {
      artifactId: 'envelope',
      name: 'handoff envelope',
      // A row whose stored text is not JSON (never written by handoff) keeps its text.
      parts: [
        envelope === null
          ? { text: row.raw_handoff_json, mediaType: 'text/plain' }
          : { data: envelope, mediaType: JSON_MEDIA },
      ],
      metadata: { handoff: { kind: 'envelope', envelope_sha256: envelopeDigest(envelope) } },
    },
    ...t.receipts.map((r) => receiptArtifact(r.row, r.cited)),
    ...blobArtifacts(t.blobs),
    ...(t.approval !== undefined ? [approvalArtifact(t.approval)] : []),
  ];
  return {
    id: row.contract_id,
    contextId: t.root,
    status: { state, timestamp: row.finalized_at ?? row.updated_at, ...(message !== undefined ? { message } : {}) },
    artifacts,
    metadata: {
      handoff: {
        contract_id: row.contract_id,
        chain_root: t.root,
        link: t.link,
        continues_contract_id: t.continues,
        agent_state: row.agent_state,
        degraded,
        cut_reason: row.cut_reason,
        kind: row.kind,
        agent_id: row.agent_id,
        workspace: row.workspace,
        created_at: row.created_at,
        finalized_at: row.finalized_at,
        statement:
          t.statementSha256 === null ? null : { predicate_type: HANDOFF_PREDICATE, payload_sha256: t.statementSha256 },
      },
    },
  };
}

/** Every turn's facts, root first: one pass over the store, inside the caller's read. */
async function collectTurns(s: StoreReads, chain: readonly HandoffRow[]): Promise<TurnFacts[]> {
  const root = chain[0].contract_id;
  const finalized = chain.filter((r) => r.finalized_at !== null);
  const { lines } = await handoffLines(s, chain);
  const digests = new Map(finalized.map((r, i) => [r.contract_id, lines[i].digest]));
  const recorded = await s.listReceiptsByContracts(chain.map((r) => r.contract_id));
  const turns: TurnFacts[] = [];
  for (const [i, row] of chain.entries()) {
    const envelope = parseEnvelope(row);
    const cited = citedReceipts(envelope).map((c) => c.id);
    const receipts: TurnFacts['receipts'] = recorded
      .filter((r) => r.contract_id === row.contract_id)
      .reverse()
      .map((r) => ({ row: r, cited: cited.includes(r.receipt_id) }));
    for (const id of cited) {
      if (receipts.some((r) => r.row.receipt_id === id)) continue;
      const r = await s.getReceipt(id);
      if (r !== undefined) receipts.push({ row: r, cited: true });
    }
    const approvalId = citedApprovalKey(envelope);
    const approval = approvalId === undefined ? undefined : await s.getApproval(approvalId);
    turns.push({
      row,
      root,
      link: i + 1,
      continues: i === 0 ? null : chain[i - 1].contract_id,
      statementSha256: digests.get(row.contract_id) ?? null,
      receipts,
      blobs: await s.citedBlobs(Number(row.id)),
      ...(approval !== undefined ? { approval } : {}),
    });
  }
  return turns;
}

export interface A2aExportRequest {
  id: string;
  /** true: the whole chain; false: root up to `id`. */
  whole: boolean;
  out: string;
}

export interface A2aExportReport {
  out: string;
  tasks: number;
  contextId: string;
  tip: string;
  states: Record<string, number>;
}

const rowNotFound = (id: string): HandoffError =>
  new HandoffError('ROW_NOT_FOUND', `no handoff row for ${id}; only a chain in the store can be exported`, {
    contract_id: id,
  });

export async function exportA2a(env: Env, cwd: string, req: A2aExportRequest): Promise<A2aExportReport> {
  const out = resolve(cwd, req.out);
  const { withStore } = await import('../store/open-store.js');
  const turns = await withStore(
    env,
    cwd,
    'reader',
    async (s) => {
      const row = await s.getHandoffByContractId(req.id);
      if (row === undefined) throw rowNotFound(req.id);
      const chain = req.whole ? await s.wholeChain(row) : (await s.walkBack(row)).reverse();
      return collectTurns(s, chain);
    },
    () => {
      throw rowNotFound(req.id);
    },
  );
  const tasks = turns.map(taskOf);
  writeWhole(out, tasks.map((t) => `${JSON.stringify(t)}\n`).join(''));
  const states: Record<string, number> = {};
  for (const t of tasks) states[t.status.state] = (states[t.status.state] ?? 0) + 1;
  return { out, tasks: tasks.length, contextId: turns[0].root, tip: tasks[tasks.length - 1].id, states };
}
