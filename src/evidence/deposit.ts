/**
 * `evidence add` (evidence.md §4.3): every refusal happens before anything is written; a blob is written atomically
 * before the row, and removed again if the row cannot be inserted, so a refused or failed deposit leaves the
 * evidence tree byte-identical.
 */
import { checkRegularFile, readRegularFile } from '../cli/input.js';
import { EXIT, HandoffError, isHandoffError, jsonQuote } from '../errors.js';
import { evidenceRoot, type Env } from '../paths.js';
import { dbFileOf, guard, writeTx, type Db } from '../store/db.js';
import { listAcs } from '../store/briefs.js';
import { getEvidence, insertEvidence, type EvidenceRow } from '../store/evidence-rows.js';
import { storeUnreadable } from '../store/store-errors.js';
import { discardBlob, mintBlobName, writeBlob, type WrittenBlob } from './blob.js';
import { briefNotFound, requireBrief } from './brief-service.js';
import type { EvidenceTypeName } from './flags.js';
import { filePayload, textPayload, type Payload } from './payload.js';
import { withWriter } from './store-access.js';

export interface DepositInput {
  workspace: string;
  brief: string;
  acId: string;
  type: EvidenceTypeName;
  /** Exactly one of text / artifactFile (checked by the caller). */
  text?: string;
  artifactFile?: string;
  taskId: string | null;
  createdBy: string | null;
}

export interface DepositResult {
  storage: 'inline' | 'blob';
  evidence: EvidenceRow;
}

/** UNKNOWN_AC (exit 1) unless `acId` is one of the brief's declared ACs (exact); a brief without ACs takes any. */
export function checkDeclaredAc(db: Db, briefId: number, briefName: string, acId: string): void {
  const declared = guard(db, () => listAcs(db, briefId)).map((a) => a.ac_id);
  if (declared.length === 0 || declared.includes(acId)) return;
  const near = declared.find((d) => d.toLowerCase() === acId.toLowerCase());
  const hint = near
    ? `did you mean ${jsonQuote(near)}? (ac ids are matched exactly)`
    : `use a declared id, or add it with: handoff brief add ${briefName} --extend --ac ${acId}=DESCRIPTION`;
  throw new HandoffError(
    'UNKNOWN_AC',
    EXIT.REJECTED,
    `brief ${jsonQuote(briefName)} does not declare ac ${jsonQuote(acId)} (declared: ${declared.join(', ')}); nothing was written;`,
    { declared },
    hint,
  );
}

export function depositEvidence(env: Env, cwd: string, input: DepositInput): DepositResult {
  // Step 2: the source file is checked (and an inline candidate read) before the store is opened.
  const payload: Payload =
    input.artifactFile !== undefined
      ? filePayload(input.artifactFile, checkRegularFile(input.artifactFile), readRegularFile)
      : textPayload(input.text ?? '');
  const absent = (): DepositResult => {
    throw briefNotFound(input.workspace, input.brief);
  };
  return withWriter(env, cwd, false, (db) => deposit(db, env, cwd, input, payload), absent);
}

function deposit(db: Db, env: Env, cwd: string, input: DepositInput, payload: Payload): DepositResult {
  // Step 3: every refusal up to here leaves the evidence tree untouched.
  const brief = requireBrief(db, input.workspace, input.brief);
  checkDeclaredAc(db, brief.id, brief.name, input.acId);
  const row = {
    brief_id: brief.id,
    ac_id: input.acId,
    task_id: input.taskId,
    type: input.type,
    created_by_agent: input.createdBy,
    handoff_id: null,
  };
  if (payload.storage === 'inline') {
    const id = insertRow(db, { ...row, text: payload.text, artifact_path: null, size_bytes: payload.size, sha256: payload.sha256 });
    return { storage: 'inline', evidence: readBack(db, id) };
  }
  // Step 5: the blob, then step 6/7: the row, or the blob is undone.
  const blob: WrittenBlob = writeBlob(
    { evidenceRoot: evidenceRoot(env, cwd), segments: [input.workspace, brief.name, input.acId], name: mintBlobName(payload.ext) },
    payload.source,
  );
  let id: number;
  try {
    id = insertRow(db, { ...row, text: null, artifact_path: blob.path, size_bytes: blob.size, sha256: blob.sha256 });
  } catch (e) {
    discardBlob(blob);
    throw e;
  }
  return { storage: 'blob', evidence: readBack(db, id) };
}

/** One IMMEDIATE transaction; a constraint failure (the brief deleted under us) is a store error too (exit 4). */
function insertRow(db: Db, row: Parameters<typeof insertEvidence>[1]): number {
  try {
    return writeTx(db, () => insertEvidence(db, row));
  } catch (e) {
    if (isHandoffError(e)) throw e;
    throw storeUnreadable(dbFileOf(db), `the evidence row could not be inserted: ${(e as Error).message}`);
  }
}

function readBack(db: Db, id: number): EvidenceRow {
  const row = guard(db, () => getEvidence(db, id));
  if (row === undefined) throw new Error(`evidence row ${id} vanished after its insert`);
  return row;
}
