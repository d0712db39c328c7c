/** `evidence list` and `evidence show` for evidence ids (evidence.md §5.1, §5.2). */
import { lstatSync } from 'node:fs';
import { EXIT, HandoffError } from '../errors.js';
import type { Env } from '../paths.js';
import type { BriefRow } from '../store/briefs.js';
import { getEvidence, listEvidence, type EvidenceRow } from '../store/evidence-rows.js';
import { briefNotFound, requireBrief } from './brief-service.js';
import { digestFile, sha256Hex } from './payload.js';
import { withReader } from './store-access.js';

export function listEvidenceOf(
  env: Env,
  cwd: string,
  workspace: string,
  briefName: string,
  acId: string | undefined,
): { brief: BriefRow; evidence: EvidenceRow[] } {
  return withReader(
    env,
    cwd,
    (db) => {
      const brief = requireBrief(db, workspace, briefName);
      return { brief, evidence: listEvidence(db, brief.id, acId) };
    },
    () => {
      throw briefNotFound(workspace, briefName);
    },
  );
}

export interface EvidenceShow {
  evidence: EvidenceRow;
  /** Blobs only: the stored path is (still) a regular file, not followed through a symlink. */
  blob_exists?: boolean;
  /** With --verify. */
  verified?: boolean;
  actual_sha256?: string | null;
}

const notFound = (id: number): HandoffError =>
  new HandoffError('EVIDENCE_NOT_FOUND', EXIT.NOT_FOUND, `no evidence row with id ${id};`, {}, 'list the ids with handoff evidence list --brief NAME');

function isRegularFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}

/** The row, `blob_exists` for a blob, and with `verify` the recomputed digest of the stored payload. */
export function showEvidence(env: Env, cwd: string, id: number, verify: boolean): EvidenceShow {
  const evidence = withReader(
    env,
    cwd,
    (db) => getEvidence(db, id),
    () => undefined,
  );
  if (evidence === undefined) throw notFound(id);
  const out: EvidenceShow = { evidence };
  const path = evidence.artifact_path;
  if (path !== null) out.blob_exists = isRegularFile(path);
  if (!verify) return out;
  const actual =
    path === null ? sha256Hex(Buffer.from(evidence.text ?? '', 'utf8')) : out.blob_exists ? (digestFile(path)?.sha256 ?? null) : null;
  out.actual_sha256 = actual;
  out.verified = actual === evidence.sha256;
  return out;
}
