/**
 * Recording a receipt (receipts.md §1.2): stream blobs first (temp file, rename), then one IMMEDIATE transaction
 * inserting the receipt row and, with --brief/--ac, one `command_output` evidence row per non-empty stream. If the
 * transaction fails, every blob this call wrote is removed and the store error is raised (exit 4).
 */
import { discardBlob, mintBlobName, writeBlob, type BlobSource, type WrittenBlob } from '../evidence/blob.js';
import { isHandoffError } from '../errors.js';
import { agentPrefix, mintReceiptId } from '../ids.js';
import { evidenceRoot, type Env } from '../paths.js';
import { closeDb, dbFileOf, openWriter, writeTx, type Db } from '../store/db.js';
import { insertEvidence } from '../store/evidence-rows.js';
import { insertReceipt } from '../store/receipts.js';
import { storeUnreadable } from '../store/store-errors.js';
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
  s.spillPath !== undefined ? { kind: 'file', path: s.spillPath } : { kind: 'bytes', bytes: s.buffer ?? Buffer.alloc(0) };

export function recordReceipt(input: RecordInput): Recorded {
  const db = openWriter(input.env, input.cwd, { create: true }) as Db;
  const blobs: WrittenBlob[] = [];
  try {
    const root = evidenceRoot(input.env, input.cwd);
    const stored = (s: CapturedStream, segments: string[], name: string): { text: string | null; path: string | null } => {
      if (s.text !== undefined) return { text: s.text, path: null };
      const blob = writeBlob({ evidenceRoot: root, segments, name }, sourceOf(s));
      blobs.push(blob);
      if (blob.sha256 !== s.sha256 || blob.size !== s.bytes) throw new Error(`the captured ${name} changed before it was stored`);
      return { text: null, path: blob.path };
    };
    const receiptDir = [input.workspace, '_receipts', input.receiptId];
    const out = stored(input.run.stdout, receiptDir, 'stdout');
    const err = stored(input.run.stderr, receiptDir, 'stderr');
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
    const row: ReceiptRow = { ...base, row_sha256: computeRowSha256(base) };
    const evidence = input.evidence === undefined ? [] : evidenceRows(input, input.evidence, root, blobs);
    const evidenceIds = writeTx(db, () => {
      insertReceipt(db, row);
      return evidence.map((e) => insertEvidence(db, e));
    });
    return { row, evidenceIds };
  } catch (e) {
    for (const b of blobs.reverse()) discardBlob(b);
    if (isHandoffError(e)) throw e;
    throw storeUnreadable(dbFileOf(db), `the receipt could not be recorded: ${(e as Error).message}`);
  } finally {
    closeDb(db);
  }
}

/** One `command_output` row per non-empty stream, inline or as a blob under `<ws>/<brief>/<ac_id>/` (.txt / .bin). */
function evidenceRows(input: RecordInput, target: EvidenceTarget, root: string, blobs: WrittenBlob[]) {
  const rows: Parameters<typeof insertEvidence>[1][] = [];
  for (const s of [input.run.stdout, input.run.stderr]) {
    if (s.bytes === 0) continue;
    const common = {
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
    if (s.text !== undefined) {
      rows.push({ ...common, text: s.text, artifact_path: null });
      continue;
    }
    const name = mintBlobName(s.utf8 ? '.txt' : '.bin');
    const blob = writeBlob({ evidenceRoot: root, segments: [input.workspace, target.briefName, target.acId], name }, sourceOf(s));
    blobs.push(blob);
    rows.push({ ...common, text: null, artifact_path: blob.path });
  }
  return rows;
}
