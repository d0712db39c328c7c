/**
 * `evidence add`: every refusal happens before anything is written. On SQLite a blob is written
 * atomically as a file before the row, and removed again if the row cannot be inserted, so a refused or failed
 * deposit leaves the evidence tree byte-identical. On PostgreSQL the blob goes into the store
 * in the row's own transaction: both or neither.
 */
import { resolve } from 'node:path';
import { checkRegularFile, readRegularFile } from '../input/files.js';
import { HandoffError, isHandoffError, jsonQuote } from '../errors.js';
import { evidenceRoot, type Env } from '../paths.js';
import { draftNotFound } from '../drafts/errors.js';
import { draftEntryExists } from '../drafts/files.js';
import type { EvidenceRow, NewEvidence } from '../store/evidence-rows.js';
import { storeUnreadable } from '../store/store-errors.js';
import type { Store, StoreReads } from '../store/store.js';
import { discardBlob, mintBlobName, writeBlob, type WrittenBlob } from './blob.js';
import { briefNotFoundIn, rejectWith, requireBrief } from './brief-service.js';
import type { EvidenceTypeName } from './flags.js';
import { filePayload, textPayload, type Payload } from './payload.js';
import { refusedAs, withWriter } from './store-access.js';
import { putVerifiedBlob, sourceBytes } from './store-blob.js';

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
  /** `--draft-id`: the contract the row is linked to (evidence.contract_id); it must have a draft file or a row. */
  contractId?: string;
}

export interface DepositResult {
  storage: 'inline' | 'blob';
  evidence: EvidenceRow;
}

/** UNKNOWN_AC (exit 1) unless `acId` is one of the brief's declared ACs (exact); a brief without ACs takes any. */
export async function checkDeclaredAc(db: StoreReads, briefId: number, briefName: string, acId: string): Promise<void> {
  const declared = (await db.listAcs(briefId)).map((a) => a.ac_id);
  if (declared.length === 0 || declared.includes(acId)) return;
  const near = declared.find((d) => d.toLowerCase() === acId.toLowerCase());
  const hint = near
    ? `did you mean ${jsonQuote(near)}? (ac ids are matched exactly)`
    : `use a declared id, or add it with: handoff brief add ${briefName} --extend --ac ${acId}=DESCRIPTION`;
  throw new HandoffError(
    'UNKNOWN_AC',
    `brief ${jsonQuote(briefName)} does not declare ac ${jsonQuote(acId)} (declared: ${declared.join(', ')}); nothing was written;`,
    { declared },
    hint,
  );
}

export async function depositEvidence(env: Env, cwd: string, input: DepositInput): Promise<DepositResult> {
  // Step 2: the source file is checked (and an inline candidate read) before the store is opened.
  const payload: Payload =
    input.artifactFile !== undefined
      ? filePayload(resolve(cwd, input.artifactFile), checkRegularFile(input.artifactFile, cwd), (path) =>
          readRegularFile(path),
        )
      : textPayload(input.text ?? '');
  const absent = (): Promise<DepositResult> => rejectWith(briefNotFoundIn(input.workspace, input.brief));
  return withWriter(env, cwd, false, (store) => deposit(store, env, cwd, input, payload), absent);
}

type RowBase = Omit<NewEvidence, 'text' | 'artifact_path' | 'size_bytes' | 'sha256'>;

async function deposit(
  store: Store,
  env: Env,
  cwd: string,
  input: DepositInput,
  payload: Payload,
): Promise<DepositResult> {
  // Step 3: every refusal up to here leaves the evidence tree untouched.
  if (input.contractId !== undefined) await requireContract(store, env, cwd, input.contractId);
  const brief = await requireBrief(store, input.workspace, input.brief);
  await checkDeclaredAc(store, brief.id, brief.name, input.acId);
  const row: RowBase = {
    brief_id: brief.id,
    ac_id: input.acId,
    task_id: input.taskId,
    type: input.type,
    created_by_agent: input.createdBy,
    handoff_id: null,
    contract_id: input.contractId ?? null,
  };
  if (payload.storage === 'inline') {
    const id = await insertRow(store, () => ({
      ...row,
      text: payload.text,
      artifact_path: null,
      size_bytes: payload.size,
      sha256: payload.sha256,
    }));
    return { storage: 'inline', evidence: await readBack(store, id) };
  }
  const blobs = store.blobs;
  if (blobs !== undefined) {
    // Read once, before the transaction (which may run again): the blob and the row are written together.
    const bytes = sourceBytes(payload.source);
    const id = await insertRow(store, async (t) => {
      const ref = await putVerifiedBlob(blobs, t, bytes);
      return { ...row, text: null, artifact_path: ref.ref, size_bytes: ref.size, sha256: ref.sha256 };
    });
    return { storage: 'blob', evidence: await readBack(store, id) };
  }
  // Step 5: the blob file, then step 6/7: the row, or the blob is undone.
  const blob: WrittenBlob = writeBlob(
    {
      evidenceRoot: evidenceRoot(env, cwd),
      segments: [input.workspace, brief.name, input.acId],
      name: mintBlobName(payload.ext),
    },
    payload.source,
  );
  let id: number;
  try {
    id = await insertRow(store, () => ({
      ...row,
      text: null,
      artifact_path: blob.path,
      size_bytes: blob.size,
      sha256: blob.sha256,
    }));
  } catch (e) {
    discardBlob(blob);
    throw e;
  }
  return { storage: 'blob', evidence: await readBack(store, id) };
}

/** A linked contract exists here: its draft file, or its row (a contract of another host on a shared store). */
async function requireContract(store: Store, env: Env, cwd: string, contractId: string): Promise<void> {
  if (draftEntryExists(env, contractId, cwd)) return;
  if ((await store.getHandoffByContractId(contractId)) !== undefined) return;
  throw draftNotFound(
    contractId,
    'neither a draft file nor a row: evidence add --draft-id links evidence to an existing contract',
  );
}

/**
 * One transaction; data the store refuses (PostgreSQL: a NUL character in text) is STORE_WRITE_REFUSED, a
 * constraint failure (the brief deleted under us) STORE_UNREADABLE, both exit 4.
 */
async function insertRow(
  store: Store,
  make: (t: Parameters<Parameters<Store['tx']>[0]>[0]) => NewEvidence | Promise<NewEvidence>,
): Promise<number> {
  try {
    return await store.tx(async (t) => t.insertEvidence(await make(t)));
  } catch (e) {
    if (isHandoffError(e)) throw e;
    const refused = await refusedAs(e, store.location, 'the evidence row');
    if (refused !== e) throw refused;
    throw storeUnreadable(store.location, `the evidence row could not be inserted: ${(e as Error).message}`);
  }
}

async function readBack(store: Store, id: number): Promise<EvidenceRow> {
  const row = await store.getEvidence(id);
  if (row === undefined) throw new Error(`evidence row ${id} vanished after its insert`);
  return row;
}
