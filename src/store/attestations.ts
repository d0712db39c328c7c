/**
 * The rows of the append-only `attestations` table (migration 0005); its statements: queries/records.ts. A statement
 * is stored in the transaction that writes what it states.
 */

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
