/**
 * The store interface: one async interface over the handoff store, with two implementations,
 * SQLite (src/store/sqlite-store.ts) and PostgreSQL (src/store/pg-store.ts), whose methods are the operations of
 * src/store/queries/, written once. src/store/open-store.ts opens the one that `HANDOFF_STORE_URL` selects.
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
 * - Blobs are optional: `blobs` exists only on a store that keeps the bytes itself (PostgreSQL), so the compiler makes
 *   every caller decide what to do without it (SQLite: files under the evidence root).
 *
 * The methods are declared by concern in concerns.ts (rows, approvals, briefs, evidence, receipts, the gate counter,
 * attestations, blobs) and composed here.
 */
import type {
  ApprovalReads,
  ApprovalWrites,
  AttestationReads,
  AttestationWrites,
  BlobReads,
  BlobRef,
  BriefReads,
  BriefWrites,
  EvidenceReads,
  EvidenceWrites,
  GateCounterReads,
  GateCounterWrites,
  HandoffReads,
  HandoffWrites,
  ReceiptReads,
  ReceiptWrites,
} from './concerns.js';
import type { MirrorOutcome } from './handoffs.js';
import { isPgRefusal } from './pg-errors.js';
import { isConstraintError } from './store-errors.js';

export type { BlobReads, BlobRef } from './concerns.js';

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
  /**
   * PostgreSQL writers: false opens an older schema as it is, for reading only (writes refused), instead of
   * migrating it. The stop gate never migrates a store.
   */
  migrate?: boolean;
  /**
   * PostgreSQL: false makes one attempt when the server or pooler refuses a connection as full (STORE_BUSY at once)
   * instead of retrying within the call's budget. The stop gate's one attempt.
   */
  retryFull?: boolean;
  /**
   * SQLite: the moment (performance.now() ms) by which every busy wait of the connection ends, whatever the busy
   * timeout; a wait cut short fails as busy. For a caller with a time budget of its own (the stop gate): a busy wait
   * blocks the thread, so no timer could end it.
   */
  waitUntil?: number;
}

/**
 * Reads: on the store (each its own statement) and on a transaction handle (inside the transaction). `blobs` is there
 * only when the store keeps evidence and receipt output bytes itself (PostgreSQL); on SQLite they are files under the
 * evidence root and `blobs` is undefined, so a caller checks before it reads a `blob:sha256:` reference.
 */
export interface StoreReads
  extends HandoffReads, ApprovalReads, BriefReads, EvidenceReads, ReceiptReads, GateCounterReads, AttestationReads {
  readonly blobs?: BlobReads;
}

/** The drafts' mirror: the draft's envelope copied onto its open row. */
export interface MirrorWrites {
  /**
   * Revision `rev` of a saved draft onto its open row, only over an older revision (a late copy of an older save
   * changes nothing: `superseded`).
   */
  mirrorEnvelope(contractId: string, json: string, rev: number): Promise<MirrorOutcome>;
}

/** A transaction handle: the reads plus every write, valid only while its `tx` function runs. */
export interface StoreTx
  extends
    StoreReads,
    HandoffWrites,
    MirrorWrites,
    ApprovalWrites,
    BriefWrites,
    EvidenceWrites,
    ReceiptWrites,
    GateCounterWrites,
    AttestationWrites {
  /**
   * The per-contract lock (PostgreSQL `pg_advisory_xact_lock`, released at commit or rollback; SQLite: nothing, BEGIN
   * IMMEDIATE already serializes). Take it before the first read a decision depends on.
   */
  lockContract(contractId: string): Promise<void>;
  /** The store's clock (UTC ISO-8601 with milliseconds). */
  now(): Promise<string>;
}

/** The blob capability of a store that keeps the bytes itself: the reads, and the write inside a transaction. */
export interface BlobStore extends BlobReads {
  /**
   * Stores `bytes` under their sha256 (deduplicated) in transaction `t` of this same store, the transaction that
   * writes the row referencing them.
   */
  putBlob(t: StoreTx, bytes: Buffer): Promise<BlobRef>;
}

export interface TxOptions {
  /** Attempts in total when the store is busy (default 3; the stop gate makes 1). */
  attempts?: number;
  /** Contract id(s) locked first, in sorted order (see StoreTx.lockContract). */
  lock?: string | readonly string[];
}

export interface Store extends StoreReads {
  readonly kind: StoreKind;
  /** Present only on a store that keeps evidence and receipt output bytes itself (PostgreSQL); see StoreReads. */
  readonly blobs?: BlobStore;
  /** What messages name: the DB file, or the URL with its password redacted. */
  readonly location: string;
  /** The schema version (after a writer's or reader's migration: the latest). */
  readonly version: number;
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
   * Writers only: the mirror (StoreTx.mirrorEnvelope) in a transaction of its own. The UPDATE re-checks the row's
   * state and revision itself, so it needs neither the contract's lock nor `tx`: on PostgreSQL one round trip where
   * `tx` takes six; on SQLite a commit without fsync (handoffs.ts mirrorEnvelope), which `tx` cannot give.
   */
  mirrorNow(contractId: string, json: string, rev: number): Promise<MirrorOutcome>;
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
