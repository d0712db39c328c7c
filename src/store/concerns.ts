/**
 * The store's concerns, one interface pair (reads, writes) each: handoff rows and chains, approvals, briefs and
 * their acceptance criteria, evidence, receipts, the gate's rejection counter, attestations, and blobs. store.ts
 * composes them into StoreReads, StoreTx and Store; a service that needs one concern can ask for just that one.
 * Blobs are a capability, not a concern every store has: only a store that keeps evidence and receipt output bytes
 * itself (PostgreSQL) offers `blobs`, so a caller must check for it (SQLite keeps them as files).
 */
import type { ApprovalLookupResult } from '../validator/types.js';
import type { ReceiptRow } from './receipt-row.js';
import type { ApprovalFilters, ApprovalRow, ApprovalStatus, DecideResult } from './approvals.js';
import type { AttestationKind, AttestationRow, BlobCitation, NewAttestation } from './attestations.js';
import type { AcRow, BriefRow, BriefSummary } from './briefs.js';
import type { BirthRow } from './dispatch-rows.js';
import type { EvidenceFilter, EvidenceRow, NewEvidence } from './evidence-rows.js';
import type { FinalRow } from './finalize-row.js';
import type { RejectionRow } from './gate-rejections.js';
import type { HandoffFilters } from './handoff-filters.js';
import type { HandoffRow } from './handoffs.js';

/** A content-addressed blob kept in the store (PostgreSQL). */
export interface BlobRef {
  sha256: string;
  size: number;
  /** What a row stores in place of a file path: `blob:sha256:<hex>`. */
  ref: string;
}

export interface CaptureOpen {
  id: number;
  json: string;
  harnessId: string | null;
}

export interface CaptureNew {
  contractId: string;
  agentId: string;
  workspace: string;
  json: string;
  harnessId: string | null;
}

export interface RejectionPut {
  key: string;
  attempts: number;
  tripped: boolean;
  codes: string[];
  contractId: string | null;
}

export interface NewApproval {
  workspace: string;
  agent_id: string | null;
  contract_id: string | null;
  exact_content: string;
}

export interface NewBrief {
  workspace: string;
  name: string;
  title: string | null;
  objective: string | null;
}

/** Handoff rows and their continuation chains. */
export interface HandoffReads {
  getHandoffByContractId(contractId: string): Promise<HandoffRow | undefined>;
  getHandoffById(id: number): Promise<HandoffRow | undefined>;
  /** [row, …, live tip]; CHAIN_TOO_LONG / CHAIN_BROKEN (exit 4). */
  followChain(row: HandoffRow): Promise<HandoffRow[]>;
  /**
   * The row of `contractId` and the links after it in one read ([row, …, live tip]; undefined without a row), where
   * that saves a round trip to the server (a writer reads it under the draft lock).
   */
  chainOfContract?(contractId: string): Promise<HandoffRow[] | undefined>;
  /** [row, …, root]. */
  walkBack(row: HandoffRow): Promise<HandoffRow[]>;
  /** root → live tip. */
  wholeChain(row: HandoffRow): Promise<HandoffRow[]>;
  chainContractIds(row: HandoffRow): Promise<string[]>;
  /** The tip's plan_task_id, else the nearest ancestor's; null = unbound. */
  planTaskBinding(tip: HandoffRow): Promise<string | null>;
  /** contract_id → agent_state for the ids that have a row. */
  spentProbe(contractIds: readonly string[]): Promise<Map<string, string>>;
  listHandoffs(filters: HandoffFilters): Promise<HandoffRow[]>;
  /** The rows the filters match, whatever the page (`after`, `limit` ignored). */
  countHandoffs(filters: HandoffFilters): Promise<number>;
  rowsWithHarnessId(harnessId: string): Promise<HandoffRow[]>;
}

/** A handoff row's life: birth (dispatch), claim, capture (the gate), the finalize UPSERT, continuations. */
export interface HandoffWrites {
  insertBirthRow(b: Omit<BirthRow, 'now'>): Promise<HandoffRow>;
  /** The set-once claim; false when the row already carries a harness id. */
  setHarnessIdIfNull(id: number, harnessId: string): Promise<boolean>;
  captureOpenRow(c: CaptureOpen): Promise<boolean>;
  captureNewRow(c: CaptureNew): Promise<boolean>;
  /** The finalize UPSERT: the row id, or undefined when the row is COMPLETE (nothing written). */
  upsertFinalRow(r: Omit<FinalRow, 'now'>): Promise<number | undefined>;
  /** The continuation link; undefined when the parent already has one. */
  insertContinuation(parent: HandoffRow, newContractId: string, seedJson: string): Promise<HandoffRow | undefined>;
  /** Sets gate_seen_at to the store's clock; false when no such row. */
  markGateSeen(contractId: string): Promise<boolean>;
  /** Dispatch's test base (set once, migration 0008); false when the row has one. */
  setTestBase(id: number, json: string): Promise<boolean>;
  /** Finalize's test-change detection, before the closing state; `baseJson` fills an inherited base. */
  setTestChanges(id: number, json: string, baseJson: string | null): Promise<boolean>;
  /** The claim token's sha256 (set once); false when the row has one. */
  setClaimTokenHash(id: number, sha256: string): Promise<boolean>;
}

export interface ApprovalReads {
  getApproval(id: string): Promise<ApprovalRow | undefined>;
  /** The cross-check's lookup. */
  approvalStatus(id: string): Promise<ApprovalLookupResult>;
  listApprovals(filters: ApprovalFilters): Promise<ApprovalRow[]>;
  /** The approvals the filters match, whatever the page (`after`, `limit` ignored). */
  countApprovals(filters: ApprovalFilters): Promise<number>;
}

export interface ApprovalWrites {
  insertApproval(a: NewApproval): Promise<ApprovalRow>;
  /** APPROVAL_NOT_FOUND (3), APPROVAL_TRANSITION_REFUSED (1). */
  decideApproval(id: string, decision: ApprovalStatus, by: string | null, note: string | null): Promise<DecideResult>;
  /** approved → used by the handoff row `handoffId` (finalize of the executing turn); false when it was not approved. */
  markApprovalUsed(id: string, handoffId: number): Promise<boolean>;
  /**
   * approved → used by one tool call the pre-tool gate let run (migration 0008): the row `handoffId` of contract
   * `contractId`, the harness's tool call id; false when it was not approved (a concurrent use won).
   */
  markApprovalUsedByCall(id: string, use: CallUse): Promise<boolean>;
}

/** The tool call an approval let run. */
export interface CallUse {
  handoffId: number;
  contractId: string;
  toolUseId: string;
}

/** Briefs and their acceptance criteria. */
export interface BriefReads {
  findBrief(workspace: string, name: string): Promise<BriefRow | undefined>;
  findBriefIgnoringCase(workspace: string, name: string): Promise<BriefRow | undefined>;
  findBriefById(id: number): Promise<BriefRow | undefined>;
  listAcs(briefId: number): Promise<AcRow[]>;
  listBriefs(workspace: string): Promise<BriefSummary[]>;
  evidenceCountsByAc(briefId: number): Promise<Map<string, number>>;
  /** The workspaces holding a brief of exactly this name, in order (BRIEF_NOT_FOUND's hint). */
  workspacesWithBrief(name: string): Promise<string[]>;
}

export interface BriefWrites {
  insertBrief(b: NewBrief): Promise<BriefRow>;
  appendAcs(briefId: number, acs: { ac_id: string; description: string }[]): Promise<AcRow[]>;
}

export interface EvidenceReads {
  getEvidence(id: number): Promise<EvidenceRow | undefined>;
  /** By brief (and AC), by the contract `evidence add --draft-id` linked (migration 0004), or both. */
  listEvidence(filter: EvidenceFilter): Promise<EvidenceRow[]>;
  countEvidence(): Promise<number>;
  /** Every stored blob reference: evidence.artifact_path and receipts.stdout_path / stderr_path. */
  referencedPaths(): Promise<Set<string>>;
  blobRows(): Promise<{ id: number; artifact_path: string }[]>;
}

export interface EvidenceWrites {
  insertEvidence(r: NewEvidence): Promise<number>;
  deleteEvidenceOfHandoff(handoffId: number): Promise<number>;
}

export interface ReceiptReads {
  getReceipt(receiptId: string): Promise<ReceiptRow | undefined>;
  /** Newest first: started_at DESC, receipt_id DESC. */
  listReceiptsByContracts(contractIds: readonly string[]): Promise<ReceiptRow[]>;
}

export interface ReceiptWrites {
  insertReceipt(row: ReceiptRow): Promise<void>;
}

/** The stop gate's rejection counter. */
export interface GateCounterReads {
  getRejection(key: string): Promise<RejectionRow | undefined>;
}

export interface GateCounterWrites {
  putRejection(r: RejectionPut): Promise<void>;
  deleteRejection(key: string): Promise<number>;
}

/** Signed statements (migration 0005). */
export interface AttestationReads {
  /** The stored statements about one subject, oldest first. */
  listAttestations(kind: AttestationKind, subjectId: string): Promise<AttestationRow[]>;
  latestAttestation(kind: AttestationKind, subjectId: string): Promise<AttestationRow | undefined>;
  /** The evidence blobs a handoff row cites (artifact rows linked to it), in id order. */
  citedBlobs(handoffId: number): Promise<BlobCitation[]>;
}

export interface AttestationWrites {
  /** Appends one statement (src/attest/record.ts), in the transaction that writes what it states. */
  insertAttestation(a: NewAttestation): Promise<void>;
}

/** Blobs kept in the store (PostgreSQL's `blobs` table), by sha256. */
export interface BlobReads {
  getBlob(sha256: string): Promise<Buffer | undefined>;
  /** sha256 → size of the given blobs that the store holds. */
  blobSizes(sha256s: readonly string[]): Promise<Map<string, number>>;
}
