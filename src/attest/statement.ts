/**
 * The in-toto Statement v1 texts handoff signs: a finalized handoff, a receipt (the test-result predicate), an
 * approval decision, and the head of an export. A payload is the statement's RFC 8785 canonical JSON, so the same
 * facts always give the same bytes; nothing that changes after the write (updated_at, harness_id, gate_seen_at) is
 * in it, and nothing about the signing (who, when, which key) is either.
 */
import { canonicalJson } from '../receipts/jcs.js';
import type { ReceiptRow } from '../receipts/row.js';
import type { ApprovalRow } from '../store/approvals.js';
import type { HandoffRow } from '../store/handoff-row.js';
import { sha256Hex } from '../sha256.js';

export const STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
export const HANDOFF_PREDICATE = 'urn:handoff:predicate:handoff:v1';
export const RECEIPT_PREDICATE = 'https://in-toto.io/attestation/test-result/v0.1';
export const APPROVAL_PREDICATE = 'urn:handoff:predicate:approval:v1';
/** v2: each listed line carries how it was signed (v1 listed bare digests and left the label outside the signature). */
export const HEAD_PREDICATE = 'urn:handoff:predicate:head:v2';
export const GENESIS = 'genesis';

export type AttestKind = 'handoff' | 'receipt' | 'approval';

export interface Subject {
  name: string;
  digest: { sha256: string };
}

export interface Statement {
  _type: string;
  subject: Subject[];
  predicateType: string;
  predicate: Record<string, unknown>;
}

// Finalize takes two digests (the envelope's and its statement's), small ones without loading node:crypto.
export { sha256Hex };

/** The exact bytes signed: the statement's canonical JSON (UTF-8). */
export const payloadOf = (s: Statement): Buffer => Buffer.from(canonicalJson(s), 'utf8');

/** sha256 of the envelope's RFC 8785 canonical JSON: the handoff subject's digest. */
export const envelopeDigest = (envelope: unknown): string => sha256Hex(canonicalJson(envelope));

export const handoffSubject = (contractId: string): string => `handoff:${contractId}`;

export interface CitedBlob {
  path: string;
  sha256: string;
}

/** The row's facts that never change once it is finalized. */
function rowFacts(row: HandoffRow): Record<string, unknown> {
  return {
    id: Number(row.id),
    contract_id: row.contract_id,
    agent_id: row.agent_id,
    workspace: row.workspace,
    agent_state: row.agent_state,
    kind: row.kind,
    plan_task_id: row.plan_task_id,
    parent_handoff_id: row.parent_handoff_id === null ? null : Number(row.parent_handoff_id),
    continues_handoff_id: row.continues_handoff_id === null ? null : Number(row.continues_handoff_id),
    consolidation: Number(row.consolidation),
    require_receipt: Number(row.require_receipt),
    created_at: row.created_at,
    finalized_at: row.finalized_at,
  };
}

export function handoffStatement(row: HandoffRow, blobs: readonly CitedBlob[], previous: string): Statement {
  const envelope = JSON.parse(row.raw_handoff_json) as unknown;
  return {
    _type: STATEMENT_TYPE,
    subject: [
      { name: handoffSubject(row.contract_id), digest: { sha256: envelopeDigest(envelope) } },
      ...[...blobs]
        .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
        .map((b) => ({ name: b.path, digest: { sha256: b.sha256 } })),
    ],
    predicateType: HANDOFF_PREDICATE,
    predicate: { envelope, row: rowFacts(row), previous, ...testChangesFact(row) },
  };
}

/**
 * The test changes finalize detected since the dispatch's base, beside what the envelope declared:
 * `{"detected": [...] | "unknown", "declared": [...] | null}`. Only on a row that has them, so every other
 * statement's payload stays as it was.
 */
function testChangesFact(row: HandoffRow): { test_changes?: unknown } {
  if (row.test_changes_json === null || row.test_changes_json === undefined) return {};
  try {
    return { test_changes: JSON.parse(row.test_changes_json) as unknown };
  } catch {
    return {};
  }
}

const RESULT: Record<string, string> = { pass: 'PASSED', fail: 'FAILED', unproven: 'WARNED' };

export function receiptStatement(row: ReceiptRow): Statement {
  const argv = JSON.parse(row.argv_json) as unknown;
  const id = row.receipt_id;
  return {
    _type: STATEMENT_TYPE,
    subject: [
      { name: `receipt:${id}`, digest: { sha256: row.row_sha256 } },
      { name: `receipt:${id}/stdout`, digest: { sha256: row.stdout_sha256 } },
      { name: `receipt:${id}/stderr`, digest: { sha256: row.stderr_sha256 } },
    ],
    predicateType: RECEIPT_PREDICATE,
    predicate: {
      result: RESULT[row.outcome] ?? 'WARNED',
      configuration: [{ name: `receipt:${id}`, digest: { sha256: row.row_sha256 } }],
      passedTests: row.outcome === 'pass' ? [row.command] : [],
      warnedTests: row.outcome !== 'pass' && row.outcome !== 'fail' ? [row.command] : [],
      failedTests: row.outcome === 'fail' ? [row.command] : [],
      receipt: {
        receipt_id: id,
        contract_id: row.contract_id,
        workspace: row.workspace,
        argv,
        shell: Number(row.shell),
        command: row.command,
        cwd: row.cwd,
        exit_code: row.exit_code === null ? null : Number(row.exit_code),
        signal: row.signal,
        timed_out: Number(row.timed_out),
        outcome: row.outcome,
        started_at: row.started_at,
        finished_at: row.finished_at,
        stdout_sha256: row.stdout_sha256,
        stderr_sha256: row.stderr_sha256,
        stdout_bytes: Number(row.stdout_bytes),
        stderr_bytes: Number(row.stderr_bytes),
        git_head: row.git_head,
        tree_fingerprint: row.tree_fingerprint,
        row_sha256: row.row_sha256,
      },
    },
  };
}

/** A decision on an approval (its status now), over the exact content it binds. */
export function approvalStatement(row: ApprovalRow): Statement {
  const usedBy = (row as unknown as { used_by?: string | null }).used_by;
  return {
    _type: STATEMENT_TYPE,
    subject: [{ name: `approval:${row.id}`, digest: { sha256: row.fingerprint } }],
    predicateType: APPROVAL_PREDICATE,
    predicate: {
      approval_id: row.id,
      fingerprint: row.fingerprint,
      exact_content: row.exact_content,
      decision: row.status,
      decided_by: row.decided_by,
      decided_at: row.decided_at,
      contract_id: row.contract_id,
      workspace: row.workspace,
      used_by: usedBy ?? null,
    },
  };
}

export interface HeadCounts {
  handoff: number;
  receipt: number;
  approval: number;
}

/** A line the head lists: its payload digest and the exporter's claim of when it was signed. */
export interface HeadLine {
  sha256: string;
  signed: 'at-write' | 'at-export';
}

export function headStatement(
  chainName: string,
  tip: string,
  counts: HeadCounts,
  lines: readonly HeadLine[],
): Statement {
  return {
    _type: STATEMENT_TYPE,
    subject: [{ name: `chain:${chainName}`, digest: { sha256: tip === GENESIS ? sha256Hex('') : tip } }],
    predicateType: HEAD_PREDICATE,
    predicate: { tip, counts, lines },
  };
}
