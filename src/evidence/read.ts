/** `evidence list` and `evidence show` for evidence ids. */
import { HandoffError } from '../errors.js';
import { evidenceRoot, type Env } from '../paths.js';
import type { BriefRow } from '../store/briefs.js';
import type { EvidenceRow } from '../store/evidence-rows.js';
import { briefNotFoundIn, rejectWith, requireBrief } from './brief-service.js';
import { sha256Hex } from './payload.js';
import { withReader } from './store-access.js';
import { payloadState, storedPayloadSha } from './store-blob.js';

/**
 * The rows of a brief (and one AC), of the contract `evidence add --draft-id` linked them to, or both. A brief that
 * does not exist is BRIEF_NOT_FOUND; without a brief filter the result names no brief.
 */
export function listEvidenceOf(
  env: Env,
  cwd: string,
  workspace: string,
  briefName: string | undefined,
  acId: string | undefined,
  contractId?: string,
): Promise<{ brief: BriefRow | null; evidence: EvidenceRow[] }> {
  return withReader(
    env,
    cwd,
    async (s) => {
      const brief = briefName === undefined ? null : await requireBrief(s, workspace, briefName);
      return { brief, evidence: await s.listEvidence({ briefId: brief?.id, acId, contractId }) };
    },
    () =>
      briefName === undefined
        ? { brief: null, evidence: [] }
        : rejectWith<{ brief: BriefRow | null; evidence: EvidenceRow[] }>(briefNotFoundIn(workspace, briefName)),
  );
}

export interface EvidenceShow {
  evidence: EvidenceRow;
  /** Blobs only: the stored blob is present (a store blob the store holds, or a regular file, not a symlink). */
  blob_exists?: boolean;
  /** With --verify. */
  verified?: boolean;
  actual_sha256?: string | null;
}

const notFound = (id: number): HandoffError =>
  new HandoffError(
    'EVIDENCE_NOT_FOUND',
    `no evidence row with id ${id};`,
    {},
    'list the ids with handoff evidence list --brief NAME',
  );

/** A row whose file path leads outside the evidence root: --verify refuses to read it (exit 1). */
const pathEscape = (row: EvidenceRow, root: string): HandoffError =>
  new HandoffError(
    'EVIDENCE_PATH_ESCAPE',
    `evidence ${row.id} names ${JSON.stringify(row.artifact_path)}, outside the evidence root ${root}; it was not read`,
    { id: row.id, artifact_path: row.artifact_path },
    'The row was altered after it was recorded; deposit the evidence again with handoff evidence add.',
  );

/**
 * The row, `blob_exists` for a blob (false for a path outside the evidence root, which is never touched), and with `verify` the recomputed digest of the stored payload: a store blob is
 * read back from the store (any host can verify it), a file blob from the data root.
 */
export async function showEvidence(env: Env, cwd: string, id: number, verify: boolean): Promise<EvidenceShow> {
  const out = await withReader<EvidenceShow | undefined>(
    env,
    cwd,
    async (s) => {
      const evidence = await s.getEvidence(id);
      if (evidence === undefined) return undefined;
      const shown: EvidenceShow = { evidence };
      const path = evidence.artifact_path;
      const root = evidenceRoot(env, cwd);
      const state = path === null ? undefined : await payloadState(s, path, root);
      if (state !== undefined) shown.blob_exists = state.kind === 'present';
      if (!verify) return shown;
      if (state?.kind === 'escape') throw pathEscape(evidence, root);
      const actual =
        path === null
          ? sha256Hex(Buffer.from(evidence.text ?? '', 'utf8'))
          : shown.blob_exists
            ? ((await storedPayloadSha(s, path, root)) ?? null)
            : null;
      shown.actual_sha256 = actual;
      shown.verified = actual === evidence.sha256;
      return shown;
    },
    () => undefined,
  );
  if (out === undefined) throw notFound(id);
  return out;
}
