/**
 * The store interface: one async interface over the handoff store, with two implementations,
 * SQLite (src/store/sqlite-store.ts, delegating to the synchronous repositories of this folder) and PostgreSQL
 * (src/store/pg-store.ts). src/store/open-store.ts opens the one that `HANDOFF_STORE_URL` selects.
 *
 * Rules every implementation keeps:
 * - Reads are on the store and on a transaction handle; row writes only on a transaction handle (`tx`), so every
 *   write runs in a transaction whose decisions (no-op, convergence, claim, capture, decide) are taken inside it.
 * - `tx` serializes writers: SQLite by BEGIN IMMEDIATE, PostgreSQL (READ COMMITTED) by the per-contract advisory
 *   locks of `opts.lock`, taken before the transaction begins (so its clock starts after the wait), or
 *   `t.lockContract` inside it. A busy store retries the whole function (3 attempts by
 *   default), so the function must do nothing outside the store that cannot run twice; then STORE_BUSY (exit 4).
 * - Row times are the store's clock: SQLite the process clock (as today), PostgreSQL the server's `now()` (the
 *   transaction's start, the same for every row a transaction writes). Write methods stamp them; `now()` reads it.
 * - Store failures are STORE_* HandoffErrors (exit 4) naming `location` (a DB file, or the URL with its password
 *   redacted). A violated constraint or trigger is passed through unchanged (isConstraintViolation tells it apart).
 */
import type { ApprovalLookupResult } from '../validator/types.js';
import type { ReceiptRow } from '../receipts/row.js';
import type { ApprovalFilters, ApprovalRow, ApprovalStatus, DecideResult } from './approvals.js';
import type { AttestationKind, AttestationRow, BlobCitation, NewAttestation } from './attestations.js';
import type { AcRow, BriefRow, BriefSummary } from './briefs.js';
import type { BirthRow } from './dispatch-rows.js';
import type { EvidenceFilter, EvidenceRow, NewEvidence } from './evidence-rows.js';
import type { FinalRow } from './finalize-row.js';
import type { RejectionRow } from './gate-rejections.js';
import type { HandoffFilters } from './handoff-list.js';
import type { HandoffRow, MirrorOutcome } from './handoffs.js';
import { isPgRefusal } from './pg-errors.js';
import { isConstraintError } from './store-errors.js';

export type StoreKind = 'sqlite' | 'postgres';

/**
 * How a verb opens the store: `probe` never creates and never migrates; `reader`
 * migrates an older store first; `writer` migrates, and creates the store only with `create`. A missing store (no
 * DB file; on PostgreSQL an empty, unmigrated database) opens as null, except for a writer with `create`.
 */
export type OpenMode = 'probe' | 'reader' | 'writer';

export interface OpenOptions {
  /** Writers only: create (SQLite: the file; PostgreSQL: the schema of an empty database) when absent. */
  create?: boolean;
  /**
   * PostgreSQL: the time limit of one statement in ms (HANDOFF_STORE_TIMEOUT_MS, which openStore reads); null: none
   * (`store copy`). Default 10 s.
   */
  timeoutMs?: number | null;
  /** The migrations folder (tests only); default: the package's folder for the backend. */
  migrationsDir?: string;
}

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

/** Reads: on the store (each its own statement) and on a transaction handle (inside the transaction). */
export interface StoreReads {
  // handoffs
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
  rowsWithHarnessId(harnessId: string): Promise<HandoffRow[]>;
  // approvals
  getApproval(id: string): Promise<ApprovalRow | undefined>;
  /** The cross-check's lookup. */
  approvalStatus(id: string): Promise<ApprovalLookupResult>;
  listApprovals(filters: ApprovalFilters): Promise<ApprovalRow[]>;
  // briefs and acceptance criteria
  findBrief(workspace: string, name: string): Promise<BriefRow | undefined>;
  findBriefIgnoringCase(workspace: string, name: string): Promise<BriefRow | undefined>;
  findBriefById(id: number): Promise<BriefRow | undefined>;
  listAcs(briefId: number): Promise<AcRow[]>;
  listBriefs(workspace: string): Promise<BriefSummary[]>;
  evidenceCountsByAc(briefId: number): Promise<Map<string, number>>;
  /** The workspaces holding a brief of exactly this name, in order (BRIEF_NOT_FOUND's hint). */
  workspacesWithBrief(name: string): Promise<string[]>;
  // evidence
  getEvidence(id: number): Promise<EvidenceRow | undefined>;
  /** By brief (and AC), by the contract `evidence add --draft-id` linked (migration 0004), or both. */
  listEvidence(filter: EvidenceFilter): Promise<EvidenceRow[]>;
  countEvidence(): Promise<number>;
  /** Every stored blob reference: evidence.artifact_path and receipts.stdout_path / stderr_path. */
  referencedPaths(): Promise<Set<string>>;
  blobRows(): Promise<{ id: number; artifact_path: string }[]>;
  // receipts
  getReceipt(receiptId: string): Promise<ReceiptRow | undefined>;
  /** Newest first: started_at DESC, receipt_id DESC. */
  listReceiptsByContracts(contractIds: readonly string[]): Promise<ReceiptRow[]>;
  // the gate's rejection counter
  getRejection(key: string): Promise<RejectionRow | undefined>;
  // blobs (PostgreSQL only: `Store.blobsInStore`; SQLite keeps them as files and refuses with INTERNAL)
  getBlob(sha256: string): Promise<Buffer | undefined>;
  /** sha256 → size of the given blobs that the store holds (PostgreSQL only, like getBlob). */
  blobSizes(sha256s: readonly string[]): Promise<Map<string, number>>;
  // attestations (migration 0005): the stored statements about one subject, oldest first
  listAttestations(kind: AttestationKind, subjectId: string): Promise<AttestationRow[]>;
  /** The evidence blobs a handoff row cites (artifact rows linked to it), in id order. */
  citedBlobs(handoffId: number): Promise<BlobCitation[]>;
}

/** A transaction handle: the reads plus every write, valid only while its `tx` function runs. */
export interface StoreTx extends StoreReads {
  /**
   * The per-contract lock (PostgreSQL `pg_advisory_xact_lock`, released at commit or rollback; SQLite: nothing, BEGIN
   * IMMEDIATE already serializes). Take it before the first read a decision depends on.
   */
  lockContract(contractId: string): Promise<void>;
  /** The store's clock (UTC ISO-8601 with milliseconds). */
  now(): Promise<string>;
  insertBirthRow(b: Omit<BirthRow, 'now'>): Promise<HandoffRow>;
  /** The set-once claim; false when the row already carries a harness id. */
  setHarnessIdIfNull(id: number, harnessId: string): Promise<boolean>;
  captureOpenRow(c: CaptureOpen): Promise<boolean>;
  captureNewRow(c: CaptureNew): Promise<boolean>;
  /** The finalize UPSERT: the row id, or undefined when the row is COMPLETE (nothing written). */
  upsertFinalRow(r: Omit<FinalRow, 'now'>): Promise<number | undefined>;
  /** The continuation link; undefined when the parent already has one. */
  insertContinuation(parent: HandoffRow, newContractId: string, seedJson: string): Promise<HandoffRow | undefined>;
  /**
   * Revision `rev` of a saved draft onto its open row, only over an older revision (a late copy of an older save
   * changes nothing: `superseded`).
   */
  mirrorEnvelope(contractId: string, json: string, rev: number): Promise<MirrorOutcome>;
  /** Sets gate_seen_at to the store's clock; false when no such row. */
  markGateSeen(contractId: string): Promise<boolean>;
  insertApproval(a: NewApproval): Promise<ApprovalRow>;
  /** APPROVAL_NOT_FOUND (3), APPROVAL_TRANSITION_REFUSED (1). */
  decideApproval(id: string, decision: ApprovalStatus, by: string | null, note: string | null): Promise<DecideResult>;
  /** approved → used by the handoff row `handoffId` (finalize of the executing turn); false when it was not approved. */
  markApprovalUsed(id: string, handoffId: number): Promise<boolean>;
  insertBrief(b: NewBrief): Promise<BriefRow>;
  appendAcs(briefId: number, acs: { ac_id: string; description: string }[]): Promise<AcRow[]>;
  insertEvidence(r: NewEvidence): Promise<number>;
  deleteEvidenceOfHandoff(handoffId: number): Promise<number>;
  insertReceipt(row: ReceiptRow): Promise<void>;
  putRejection(r: RejectionPut): Promise<void>;
  deleteRejection(key: string): Promise<number>;
  /** Stores `bytes` under their sha256 (deduplicated); PostgreSQL only. */
  putBlob(bytes: Buffer): Promise<BlobRef>;
  /** Appends one statement (src/attest/record.ts), in the transaction that writes what it states. */
  insertAttestation(a: NewAttestation): Promise<void>;
}

export interface TxOptions {
  /** Attempts in total when the store is busy (default 3; the stop gate makes 1). */
  attempts?: number;
  /** Contract id(s) locked first, in sorted order (see StoreTx.lockContract). */
  lock?: string | readonly string[];
}

export interface Store extends StoreReads {
  readonly kind: StoreKind;
  /** What messages name: the DB file, or the URL with its password redacted. */
  readonly location: string;
  /** The schema version (after a writer's or reader's migration: the latest). */
  readonly version: number;
  /** True when evidence and receipt output blobs live in the store (PostgreSQL), false when on disk (SQLite). */
  readonly blobsInStore: boolean;
  tx<T>(fn: (t: StoreTx) => Promise<T>, opts?: TxOptions): Promise<T>;
  now(): Promise<string>;
  /** Whether the raw_handoff_json CHECK accepts `json` (asked without writing). */
  acceptsJson(json: string): Promise<boolean>;
  /**
   * A writer over this store's own connections (no second connect), opened as a writer opens (the migration
   * runner's checks; on SQLite a probe at the build's version, which has nothing to migrate); undefined when the
   * schema is older than the build or the store read-only here (the caller then opens a writer the usual way, when
   * it actually writes). Closing either closes both.
   */
  currentWriter?(): Promise<Store | undefined>;
  /**
   * PostgreSQL only, writers only: the mirror (StoreTx.mirrorEnvelope) as one statement in a transaction of its own.
   * The UPDATE is atomic and re-checks the row's state and revision under its row lock, so it needs neither the
   * contract's lock nor an explicit transaction: one round trip where `tx` takes six.
   */
  mirrorNow?(contractId: string, json: string, rev: number): Promise<MirrorOutcome>;
  close(): Promise<void>;
}

/** `blob:sha256:<hex>`, the reference a row stores for a blob kept in the store. */
export const BLOB_REF_PREFIX = 'blob:sha256:';
export const blobRef = (sha256: string): string => `${BLOB_REF_PREFIX}${sha256}`;

/** The sha256 of a `blob:sha256:<hex>` reference, or undefined for anything else (a file path). */
export function blobRefSha(ref: string): string | undefined {
  if (!ref.startsWith(BLOB_REF_PREFIX)) return undefined;
  const sha = ref.slice(BLOB_REF_PREFIX.length);
  return /^[0-9a-f]{64}$/.test(sha) ? sha : undefined;
}

/**
 * A write the store refused itself (a CHECK, a trigger, a unique or foreign key; on PostgreSQL also data it cannot
 * hold): rolled back, nothing written. Both backends pass these through unchanged (finalize maps them to
 * STORE_WRITE_REFUSED).
 */
export const isConstraintViolation = (e: unknown): boolean => isConstraintError(e) || isPgRefusal(e);
