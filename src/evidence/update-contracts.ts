/**
 * The `update_contracts` evidence clause applied by `contract finalize`.
 *
 * API for finalize (one path for both stores, through the Store interface):
 *
 *   // step 9, before the transaction (no store access; reads and hashes the cited artifact files):
 *   const batch = checkEvidenceBatch(envelope.update_contracts, { envelope, env, cwd });
 *   if (batch.errors.length > 0) -> reject (exit 1) with batch.errors; nothing written
 *
 *   // step 10, on the finalize transaction's handle, after the no-op decision:
 *   const refs = await checkEvidenceRefsIn(t, batch.entries, { workspace });   // before the UPSERT
 *   if (refs.length > 0) -> reject (exit 1) with refs (the transaction writes nothing)
 *   ... UPSERT -> handoffId ...
 *   const inserted = await insertEvidenceRows(t, batch.entries, { handoffId, replace: converging, blobs: store.blobs });
 *
 * - Only entries whose `contract` is exactly "evidence" and whose `payload` is an object are judged here; the entry
 *   shape (UPDATE_CONTRACTS_SHAPE) and non-evidence entries (SECTION_NOT_WRITABLE) are finalize's.
 * - Errors are `{code, path, detail}`, path `update_contracts[i].payload[.field]` with `i` the index in the full
 *   array, collected for every entry in field order. `entries` is empty whenever `errors` is not (all or nothing).
 * - `workspace` is the row's workspace (its frozen value when converging, the resolved one when inserting).
 * - `replace: true` (converging an existing row) deletes the row's earlier evidence before inserting, even when the
 *   new batch is empty: call it on every converging write. Never call it on a no-op.
 */
import { jsonQuote } from '../errors.js';
import { evidenceRoot, type Env } from '../paths.js';
import { blobRefSha, type BlobStore, type StoreReads, type StoreTx } from '../store/store.js';
import type { BriefRow } from '../store/briefs.js';
import type { EvidenceType } from '../store/evidence-rows.js';
import { checkCanonicalPath } from './canonical-path.js';
import { EVIDENCE_TYPES, isEvidenceType } from './flags.js';
import { INLINE_MAX_BYTES, digestFile, sha256Hex } from './payload.js';
import { isSafeSlug } from './slug.js';
import { putVerifiedBlob } from './store-blob.js';
import { readRegularFile } from '../input/files.js';

export interface BatchError {
  code: 'EVIDENCE_PAYLOAD' | 'EVIDENCE_ARTIFACT_PATH' | 'EVIDENCE_BRIEF_NOT_FOUND' | 'EVIDENCE_UNKNOWN_AC';
  path: string;
  detail: string;
}

/** One valid evidence entry, ready to insert. */
export interface ResolvedEntry {
  /** Index in the full update_contracts array. */
  index: number;
  brief_id: number;
  ac_id: string;
  type: EvidenceType;
  text: string | null;
  /** The resolved path returned by the canonical-path rule, or a `blob:sha256:` reference (a blob in the store). */
  artifact_path: string | null;
  /** The artifact is a blob already in the store (PostgreSQL): its size is read in step 10. */
  store_blob?: boolean;
  size_bytes: number;
  sha256: string;
  task_id: string | null;
  created_by_agent: string | null;
}

export interface BatchContext {
  /** The envelope being finalized (for the created_by_agent default: agent_status.agent_id). */
  envelope: unknown;
  env: Env;
  cwd?: string;
}

const KEYS = ['brief_id', 'ac_id', 'type', 'text', 'artifact_path', 'task_id', 'created_by_agent', 'size_bytes'];

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const has = (o: Record<string, unknown>, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);
const nonBlankString = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '';

function defaultAgent(envelope: unknown): string | null {
  const status = isObject(envelope) ? envelope.agent_status : undefined;
  const id = isObject(status) ? status.agent_id : undefined;
  return nonBlankString(id) ? id : null;
}

/** The evidence entries of the array: [index, payload] for `contract` exactly "evidence" with an object payload. */
export function evidenceEntries(updateContracts: unknown): [number, Record<string, unknown>][] {
  if (!Array.isArray(updateContracts)) return [];
  const out: [number, Record<string, unknown>][] = [];
  updateContracts.forEach((entry: unknown, i) => {
    if (isObject(entry) && entry.contract === 'evidence' && isObject(entry.payload)) out.push([i, entry.payload]);
  });
  return out;
}

/** Step 9: the static rules on every evidence entry (all failures collected). */
export function checkEvidenceBatch(
  updateContracts: unknown,
  ctx: BatchContext,
): { errors: BatchError[]; entries: ResolvedEntry[] } {
  const root = evidenceRoot(ctx.env, ctx.cwd);
  const agent = defaultAgent(ctx.envelope);
  const errors: BatchError[] = [];
  const entries: ResolvedEntry[] = [];
  for (const [i, payload] of evidenceEntries(updateContracts)) {
    const r = checkEntry(i, payload, root, agent);
    if ('errors' in r) errors.push(...r.errors);
    else entries.push(r.entry);
  }
  return errors.length > 0 ? { errors, entries: [] } : { errors, entries };
}

function checkEntry(
  i: number,
  p: Record<string, unknown>,
  root: string,
  agent: string | null,
): { errors: BatchError[] } | { entry: ResolvedEntry } {
  const base = `update_contracts[${i}].payload`;
  const errors: BatchError[] = [];
  const bad = (field: string | null, detail: string, code: BatchError['code'] = 'EVIDENCE_PAYLOAD'): void => {
    errors.push({ code, path: field === null ? base : `${base}.${field}`, detail });
  };
  for (const k of Object.keys(p))
    if (!KEYS.includes(k)) bad(k, `unknown key; an evidence payload takes only ${KEYS.join(', ')}`);

  const briefId = p.brief_id;
  if (!has(p, 'brief_id')) bad('brief_id', 'is required (the id printed by handoff brief add)');
  else if (typeof briefId !== 'number' || !Number.isSafeInteger(briefId) || briefId < 1) {
    bad('brief_id', `must be an integer from 1 to 2^53-1 (a JSON number), got ${jsonQuote(briefId)}`);
  }
  if (!has(p, 'ac_id')) bad('ac_id', 'is required');
  else if (!isSafeSlug(p.ac_id)) bad('ac_id', `must be a safe slug such as AC-1, got ${jsonQuote(p.ac_id)}`);
  if (!has(p, 'type')) bad('type', `is required (one of ${EVIDENCE_TYPES.join(', ')})`);
  else if (!isEvidenceType(p.type))
    bad('type', `must be one of ${EVIDENCE_TYPES.join(', ')} (exact), got ${jsonQuote(p.type)}`);

  const text = p.text ?? null;
  const artifact = p.artifact_path ?? null;
  if (text !== null && artifact !== null) bad(null, 'text and artifact_path are mutually exclusive');
  if (text === null && artifact === null) bad(null, 'requires exactly one of text or artifact_path');
  let computed: { size: number; sha256: string; path: string | null; stored?: boolean } | undefined;
  if (text !== null) {
    if (typeof text !== 'string' || text.trim() === '')
      bad('text', `must be a non-blank string, got ${jsonQuote(text)}`);
    else {
      const bytes = Buffer.from(text, 'utf8');
      if (bytes.length > INLINE_MAX_BYTES) {
        bad(
          'text',
          `is ${bytes.length} UTF-8 bytes (at most ${INLINE_MAX_BYTES}); deposit it with handoff evidence add and cite artifact_path`,
        );
      } else if (artifact === null) computed = { size: bytes.length, sha256: sha256Hex(bytes), path: null };
    }
  }
  const refSha = typeof artifact === 'string' ? blobRefSha(artifact) : undefined;
  if (artifact !== null && refSha !== undefined) {
    // A store blob (what `evidence add` prints on PostgreSQL): checked against the store inside the transaction.
    if (text === null) computed = { size: -1, sha256: refSha, path: artifact as string, stored: true };
  } else if (artifact !== null) {
    const rule = checkCanonicalPath(artifact, root);
    if (!rule.ok) bad('artifact_path', `${jsonQuote(artifact)} ${rule.detail}`, 'EVIDENCE_ARTIFACT_PATH');
    else {
      const digest = digestFile(rule.real);
      if (digest === undefined) bad('artifact_path', `${jsonQuote(artifact)} cannot be read`, 'EVIDENCE_ARTIFACT_PATH');
      else if (text === null) computed = { ...digest, path: rule.real };
    }
  }
  const optionalText = (field: string): void => {
    if (has(p, field) && p[field] !== null && !nonBlankString(p[field])) {
      bad(field, `must be null or a non-blank string, got ${jsonQuote(p[field])}`);
    }
  };
  optionalText('task_id');
  optionalText('created_by_agent');
  const size = p.size_bytes ?? null;
  if (size !== null) {
    if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) {
      bad('size_bytes', `must be null or an integer >= 0, got ${jsonQuote(size)}`);
    } else if (computed !== undefined && computed.stored !== true && size !== computed.size) {
      bad('size_bytes', `is ${size} but the payload is ${computed.size} bytes`);
    }
  }
  if (errors.length > 0 || computed === undefined) return { errors };
  return {
    entry: {
      index: i,
      brief_id: briefId as number,
      ac_id: p.ac_id as string,
      type: p.type as EvidenceType,
      text: computed.path === null ? (text as string) : null,
      artifact_path: computed.path,
      size_bytes: computed.stored === true ? ((size as number | null) ?? -1) : computed.size,
      sha256: computed.sha256,
      ...(computed.stored === true ? { store_blob: true } : {}),
      task_id: (p.task_id as string | null | undefined) ?? null,
      created_by_agent: has(p, 'created_by_agent') ? (p.created_by_agent as string | null) : agent,
    },
  };
}

const noStoreBlob = (e: ResolvedEntry, why: string): BatchError => ({
  code: 'EVIDENCE_ARTIFACT_PATH',
  path: `update_contracts[${e.index}].payload.artifact_path`,
  detail: `${jsonQuote(e.artifact_path)} names no blob of this store (${why})`,
});

/**
 * Through the Store interface (both backends; run it on the finalize transaction's handle): the brief
 * exists in `workspace`, the AC is declared, and a `blob:sha256:` artifact is a blob the store holds (its size then
 * fills `size_bytes`, and a declared size must equal it). `t` null: no store yet, every entry is
 * EVIDENCE_BRIEF_NOT_FOUND.
 */
export async function checkEvidenceRefsIn(
  t: StoreReads | null,
  entries: ResolvedEntry[],
  opts: { workspace: string },
): Promise<BatchError[]> {
  const errors: BatchError[] = [];
  const briefs = new Map<number, { brief: BriefRow | undefined; acs: string[] }>();
  const shas = entries.filter((e) => e.store_blob === true).map((e) => e.sha256);
  const blobs = t?.blobs;
  const held = blobs !== undefined && shas.length > 0 ? await blobs.blobSizes(shas) : new Map<string, number>();
  for (const e of entries) {
    let known = briefs.get(e.brief_id);
    if (known === undefined) {
      const brief = t === null ? undefined : await t.findBriefById(e.brief_id);
      known = { brief, acs: brief && t ? (await t.listAcs(brief.id)).map((a) => a.ac_id) : [] };
      briefs.set(e.brief_id, known);
    }
    errors.push(...judgeRef(e, known, opts.workspace));
    if (e.store_blob !== true || errors.some((x) => x.path.startsWith(`update_contracts[${e.index}].`))) continue;
    const size = held.get(e.sha256);
    if (size === undefined)
      errors.push(
        noStoreBlob(e, blobs !== undefined ? 'the store does not hold it' : 'a SQLite store keeps blobs as files'),
      );
    else if (e.size_bytes !== -1 && e.size_bytes !== size) {
      errors.push({
        code: 'EVIDENCE_PAYLOAD',
        path: `update_contracts[${e.index}].payload.size_bytes`,
        detail: `is ${e.size_bytes} but the blob is ${size} bytes`,
      });
    } else e.size_bytes = size;
  }
  return errors;
}

function judgeRef(
  e: ResolvedEntry,
  known: { brief: BriefRow | undefined; acs: string[] },
  workspace: string,
): BatchError[] {
  const base = `update_contracts[${e.index}].payload`;
  const { brief, acs } = known;
  if (brief === undefined || brief.workspace !== workspace) {
    const where =
      brief === undefined
        ? 'no brief has'
        : `brief ${jsonQuote(brief.name)} belongs to workspace ${jsonQuote(brief.workspace)}, not`;
    return [
      {
        code: 'EVIDENCE_BRIEF_NOT_FOUND',
        path: `${base}.brief_id`,
        detail: brief === undefined ? `${where} id ${e.brief_id}` : `${where} ${jsonQuote(workspace)}`,
      },
    ];
  }
  if (acs.length > 0 && !acs.includes(e.ac_id)) {
    const near = acs.find((a) => a.toLowerCase() === e.ac_id.toLowerCase());
    const hint = near ? `; did you mean ${jsonQuote(near)}?` : '';
    return [
      {
        code: 'EVIDENCE_UNKNOWN_AC',
        path: `${base}.ac_id`,
        detail: `brief ${jsonQuote(brief.name)} does not declare ${jsonQuote(e.ac_id)} (declared: ${acs.join(', ')})${hint}`,
      },
    ];
  }
  return [];
}

/**
 * On the caller's transaction (no transaction of its own: the Store has no nested ones). With the store's
 * `blobs` (PostgreSQL) a cited local file becomes a store blob in this same transaction and the row stores its
 * `blob:sha256:` reference; the bytes must still hash to what step 9 computed. Reading the file is the only thing
 * it does outside the store, and reading can be repeated when the transaction is retried.
 */
export async function insertEvidenceRows(
  t: StoreTx,
  entries: ResolvedEntry[],
  opts: { handoffId: number; replace: boolean; blobs: BlobStore | undefined },
): Promise<number> {
  if (opts.replace) await t.deleteEvidenceOfHandoff(opts.handoffId);
  for (const e of entries) {
    const { index: _index, store_blob: stored, ...row } = e;
    let artifact = row.artifact_path;
    if (artifact !== null && stored !== true && opts.blobs !== undefined) {
      artifact = (
        await putVerifiedBlob(opts.blobs, t, readRegularFile(artifact), { sha256: row.sha256, size: row.size_bytes })
      ).ref;
    }
    await t.insertEvidence({ ...row, artifact_path: artifact, handoff_id: opts.handoffId, receipt_id: null });
  }
  return entries.length;
}

/** Both halves of step 10 on the caller's transaction, after the UPSERT. */
export async function applyEvidenceBatchIn(
  t: StoreTx,
  entries: ResolvedEntry[],
  opts: { handoffId: number; workspace: string; replace?: boolean; blobs: BlobStore | undefined },
): Promise<{ ok: true; inserted: number } | { ok: false; errors: BatchError[] }> {
  const errors = await checkEvidenceRefsIn(t, entries, opts);
  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    inserted: await insertEvidenceRows(t, entries, {
      handoffId: opts.handoffId,
      replace: opts.replace ?? false,
      blobs: opts.blobs,
    }),
  };
}
