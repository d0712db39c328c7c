/** The `attestations` table on PostgreSQL (attestations.ts is the SQLite side: same rows, same order). */
import {
  ATTESTATION_COLS,
  type AttestationKind,
  type AttestationRow,
  type BlobCitation,
  type NewAttestation,
} from './attestations.js';
import type { Run } from './pg-driver.js';

export async function insertAttestation(run: Run, a: NewAttestation): Promise<void> {
  await run(
    `INSERT INTO attestations (kind, subject_id, payload, payload_sha256, signer, key_id, signature)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [a.kind, a.subject_id, a.payload, a.payload_sha256, a.signer, a.key_id, a.signature],
  );
}

export async function listAttestations(run: Run, kind: AttestationKind, subjectId: string): Promise<AttestationRow[]> {
  const { rows } = await run<AttestationRow>(
    `SELECT ${ATTESTATION_COLS} FROM attestations WHERE kind = $1 AND subject_id = $2 ORDER BY id`,
    [kind, subjectId],
  );
  return rows.map((r) => ({ ...r, id: Number(r.id) }));
}

export async function citedBlobs(run: Run, handoffId: number): Promise<BlobCitation[]> {
  const { rows } = await run<BlobCitation>(
    'SELECT artifact_path AS path, sha256 FROM evidence WHERE handoff_id = $1 AND artifact_path IS NOT NULL ORDER BY id',
    [handoffId],
  );
  return rows;
}
