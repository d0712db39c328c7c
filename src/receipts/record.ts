/**
 * Recording a receipt: one transaction inserting the receipt row and, with --brief/--ac, one
 * `command_output` evidence row per non-empty stream. Outputs too large to keep inline are blobs: on SQLite files
 * streamed first (temp file, rename) and removed again if the transaction fails; on PostgreSQL
 * store blobs written in that same transaction, referenced as `blob:sha256:<hex>`. A failure raises the store error
 * (exit 4) and leaves nothing behind.
 */
import { attestReceipt } from '../attest/record.js';
import { storeSigner } from '../attest/signer.js';
import { discardBlob, mintBlobName, writeBlob, type BlobSource, type WrittenBlob } from '../evidence/blob.js';
import { isHandoffError } from '../errors.js';
import { agentPrefix, mintReceiptId } from '../ids.js';
import { evidenceRoot, type Env } from '../paths.js';
import { refusedAs, withWriter } from '../evidence/store-access.js';
import { putVerifiedBlob, sourceBytes } from '../evidence/store-blob.js';
import type { NewEvidence } from '../store/evidence-rows.js';
import { storeUnreadable } from '../store/store-errors.js';
import type { BlobStore, Store, StoreTx } from '../store/store.js';
import type { CapturedStream } from './capture.js';
import type { TreeFingerprint } from './fingerprint.js';
import { displayCommand } from './quote.js';
import { computeRowSha256, outcomeOf, type ReceiptRow } from './row.js';
import type { ChildRun } from './spawn.js';

export { mintReceiptId };

export interface EvidenceTarget {
  briefId: number;
  briefName: string;
  acId: string;
}

export interface RecordInput {
  env: Env;
  cwd: string;
  receiptId: string;
  contractId: string;
  workspace: string;
  argv: readonly string[];
  shell: boolean;
  /** Absolute directory the command ran in. */
  runCwd: string;
  run: ChildRun;
  fingerprint: TreeFingerprint | null;
  evidence?: EvidenceTarget;
}

export interface Recorded {
  row: ReceiptRow;
  evidenceIds: number[];
}

const sourceOf = (s: CapturedStream): BlobSource =>
  s.spillPath !== undefined
    ? { kind: 'file', path: s.spillPath }
    : { kind: 'bytes', bytes: s.buffer ?? Buffer.from(s.text ?? '', 'utf8') };

export function recordReceipt(input: RecordInput): Promise<Recorded> {
  return withWriter(
    input.env,
    input.cwd,
    true,
    (store) => recordIn(store, input),
    () => {
      throw new Error('a writer opened with create returned no store');
    },
  );
}

/** A stored output: inline text, or a blob (a file path on SQLite, a store reference on PostgreSQL). */
type Stored = { text: string | null; path: string | null };

/** Where the bytes of one blob go: a file under the data root (SQLite) or the store (PostgreSQL, inside the tx). */
interface Pending {
  /** The store that keeps the bytes (PostgreSQL). */
  blobs: BlobStore;
  source: BlobSource;
  stream: CapturedStream;
  segments: string[];
  name: string;
}

async function recordIn(store: Store, input: RecordInput): Promise<Recorded> {
  // The signing key is read before anything is written: an unsafe key records nothing (KEY_UNSAFE, exit 2).
  const signer = storeSigner(input.env, input.cwd);
  const files: WrittenBlob[] = [];
  const root = evidenceRoot(input.env, input.cwd);
  try {
    // Step 1: the blobs. SQLite: files now (never inside the transaction, which may run again). PostgreSQL: the
    // bytes are read now and stored by the transaction.
    const pending: Pending[] = [];
    const blobs = store.blobs;
    const blobOf = (s: CapturedStream, segments: string[], name: string): Stored | Pending => {
      // PostgreSQL cannot hold a NUL character in text: such an output is kept as a blob, so the receipt is recorded.
      if (s.text !== undefined && !(blobs !== undefined && s.text.includes('\0'))) return { text: s.text, path: null };
      const source = sourceOf(s);
      if (blobs !== undefined) {
        const p: Pending = { blobs, source, stream: s, segments, name };
        pending.push(p);
        return p;
      }
      const blob = writeBlob({ evidenceRoot: root, segments, name }, source);
      files.push(blob);
      if (blob.sha256 !== s.sha256 || blob.size !== s.bytes)
        throw new Error(`the captured ${name} changed before it was stored`);
      return { text: null, path: blob.path };
    };
    const receiptDir = [input.workspace, '_receipts', input.receiptId];
    const out = blobOf(input.run.stdout, receiptDir, 'stdout');
    const err = blobOf(input.run.stderr, receiptDir, 'stderr');
    const evidence = input.evidence === undefined ? [] : evidenceRows(input, input.evidence, blobOf);
    const bytes = new Map(pending.map((p) => [p, sourceBytes(p.source)]));
    const resolve = async (t: StoreTx, x: Stored | Pending): Promise<Stored> => {
      if (!('source' in x)) return x;
      const ref = await putVerifiedBlob(x.blobs, t, bytes.get(x) as Buffer, {
        sha256: x.stream.sha256,
        size: x.stream.bytes,
      });
      return { text: null, path: ref.ref };
    };
    return await store.tx(async (t) => {
      const row = receiptRow(input, await resolve(t, out), await resolve(t, err));
      await t.insertReceipt(row);
      await attestReceipt(t, row, signer);
      const evidenceIds: number[] = [];
      for (const e of evidence) {
        const stored = await resolve(t, e.stored);
        evidenceIds.push(await t.insertEvidence({ ...e.row, text: stored.text, artifact_path: stored.path }));
      }
      return { row, evidenceIds };
    });
  } catch (e) {
    for (const b of files.reverse()) discardBlob(b);
    if (isHandoffError(e)) throw e;
    const refused = await refusedAs(e, store.location, 'the receipt');
    if (refused !== e) throw refused;
    throw storeUnreadable(store.location, `the receipt could not be recorded: ${(e as Error).message}`);
  }
}

function receiptRow(input: RecordInput, out: Stored, err: Stored): ReceiptRow {
  const { run } = input;
  const exitCode = run.exitCode;
  const base: Omit<ReceiptRow, 'row_sha256'> = {
    receipt_id: input.receiptId,
    contract_id: input.contractId,
    workspace: input.workspace,
    argv_json: JSON.stringify(input.argv),
    shell: input.shell ? 1 : 0,
    command: displayCommand(input.argv, input.shell),
    cwd: input.runCwd,
    started_at: run.startedAt,
    finished_at: run.finishedAt,
    duration_ms: run.durationMs,
    exit_code: exitCode,
    signal: exitCode === null ? run.signal : null,
    timed_out: run.timedOut ? 1 : 0,
    outcome: outcomeOf(exitCode),
    stdout_sha256: run.stdout.sha256,
    stdout_bytes: run.stdout.bytes,
    stderr_sha256: run.stderr.sha256,
    stderr_bytes: run.stderr.bytes,
    stdout_text: out.text,
    stderr_text: err.text,
    stdout_path: out.path,
    stderr_path: err.path,
    git_head: input.fingerprint?.gitHead ?? null,
    tree_fingerprint: input.fingerprint?.treeFingerprint ?? null,
  };
  return { ...base, row_sha256: computeRowSha256(base) };
}

/** One `command_output` row per non-empty stream, inline or as a blob under `<ws>/<brief>/<ac_id>/` (.txt / .bin). */
function evidenceRows(
  input: RecordInput,
  target: EvidenceTarget,
  blobOf: (s: CapturedStream, segments: string[], name: string) => Stored | Pending,
): { row: Omit<NewEvidence, 'text' | 'artifact_path'>; stored: Stored | Pending }[] {
  const rows: { row: Omit<NewEvidence, 'text' | 'artifact_path'>; stored: Stored | Pending }[] = [];
  for (const s of [input.run.stdout, input.run.stderr]) {
    if (s.bytes === 0) continue;
    const row = {
      brief_id: target.briefId,
      ac_id: target.acId,
      task_id: null,
      type: 'command_output' as const,
      size_bytes: s.bytes,
      sha256: s.sha256,
      created_by_agent: agentPrefix(input.contractId),
      handoff_id: null,
      receipt_id: input.receiptId,
    };
    const name = mintBlobName(s.utf8 ? '.txt' : '.bin');
    rows.push({ row, stored: blobOf(s, [input.workspace, target.briefName, target.acId], name) });
  }
  return rows;
}
