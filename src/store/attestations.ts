/**
 * The append-only `attestations` table (migration 0005), SQLite side; pg-attestations.ts is the PostgreSQL side with
 * the same rows and order. A statement is stored in the transaction that writes what it states.
 */
import type { Db } from './db.js';
import { guard, hasTable } from './db.js';

export type AttestationKind = 'handoff' | 'receipt' | 'approval';

export interface NewAttestation {
  kind: AttestationKind;
  subject_id: string;
  payload: string;
  payload_sha256: string;
  signer: 'store' | 'approver' | null;
  key_id: string | null;
  signature: string | null;
}

export interface AttestationRow extends NewAttestation {
  id: number;
  created_at: string;
}

/** An evidence blob a handoff row cites: its stored reference (a file path, or `blob:sha256:<hex>`) and digest. */
export interface BlobCitation {
  path: string;
  sha256: string;
}

export const ATTESTATION_COLS = 'id, kind, subject_id, payload, payload_sha256, signer, key_id, signature, created_at';

export function insertAttestation(db: Db, a: NewAttestation): void {
  db.prepare(
    `INSERT INTO attestations (kind, subject_id, payload, payload_sha256, signer, key_id, signature)
     VALUES (@kind, @subject_id, @payload, @payload_sha256, @signer, @key_id, @signature)`,
  ).run(a);
}

/** The statements about one subject, oldest first; none on a store older than the table. */
export function listAttestations(db: Db, kind: AttestationKind, subjectId: string): AttestationRow[] {
  if (!hasTable(db, 'attestations')) return [];
  return guard(
    db,
    () =>
      db
        .prepare(`SELECT ${ATTESTATION_COLS} FROM attestations WHERE kind = ? AND subject_id = ? ORDER BY id`)
        .all(kind, subjectId) as AttestationRow[],
  );
}

export function citedBlobs(db: Db, handoffId: number): BlobCitation[] {
  return guard(
    db,
    () =>
      db
        .prepare(
          'SELECT artifact_path AS path, sha256 FROM evidence WHERE handoff_id = ? AND artifact_path IS NOT NULL ORDER BY id',
        )
        .all(handoffId) as BlobCitation[],
  );
}
