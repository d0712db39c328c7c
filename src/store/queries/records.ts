/**
 * The statements of the smaller tables, written once for both backends: the immutable `receipts` (migration 0002),
 * the stop gate's rejection counter (`gate_rejections`; its meaning: src/gate/breaker.ts) and the append-only
 * `attestations` (migration 0005), stored in the transaction that writes what they state.
 */
import type { AttestationKind, AttestationRow, BlobCitation, NewAttestation } from '../attestations.js';
import type { RejectionPut } from '../concerns.js';
import type { RejectionRow } from '../gate-rejections.js';
import { RECEIPT_COLUMNS, type ReceiptRow } from '../receipt-row.js';
import { q, type Dialect, type Op } from './op.js';

const RECEIPT_LIST = RECEIPT_COLUMNS.join(', ');
const RECEIPTS_SINCE = 2;
const ATTESTATIONS_SINCE = 5;
const ATTESTATION_COLS = 'id, kind, subject_id, payload, payload_sha256, signer, key_id, signature, created_at';

const RECEIPTS_OF = (d: Dialect): string =>
  `SELECT ${RECEIPT_LIST} FROM receipts WHERE contract_id ${d.inTexts('$1')} ORDER BY started_at DESC, receipt_id DESC`;

export const recordReads = {
  *getReceipt(receiptId: string): Op<ReceiptRow | undefined> {
    const text = `SELECT ${RECEIPT_LIST} FROM receipts WHERE receipt_id = $1`;
    return (yield* q<ReceiptRow>(text, [receiptId], RECEIPTS_SINCE)).rows[0];
  },
  /** Newest first: started_at DESC, receipt_id DESC. */
  *listReceiptsByContracts(contractIds: readonly string[]): Op<ReceiptRow[]> {
    if (contractIds.length === 0) return [];
    return (yield* q<ReceiptRow>(RECEIPTS_OF, [contractIds], RECEIPTS_SINCE)).rows;
  },
  *getRejection(key: string): Op<RejectionRow | undefined> {
    const text =
      'SELECT key, attempts, tripped, last_codes_json, contract_id, updated_at FROM gate_rejections WHERE key = $1';
    return (yield* q<RejectionRow>(text, [key])).rows[0];
  },
  /** The statements about one subject, oldest first; none on a store older than the table. */
  *listAttestations(kind: AttestationKind, subjectId: string): Op<AttestationRow[]> {
    const text = `SELECT ${ATTESTATION_COLS} FROM attestations WHERE kind = $1 AND subject_id = $2 ORDER BY id`;
    const { rows } = yield* q<AttestationRow>(text, [kind, subjectId], ATTESTATIONS_SINCE);
    return rows.map((r) => ({ ...r, id: Number(r.id) }));
  },
  /** The newest statement about one subject (the last of listAttestations), without reading the others. */
  *latestAttestation(kind: AttestationKind, subjectId: string): Op<AttestationRow | undefined> {
    const text = `SELECT ${ATTESTATION_COLS} FROM attestations WHERE kind = $1 AND subject_id = $2 ORDER BY id DESC LIMIT 1`;
    const row = (yield* q<AttestationRow>(text, [kind, subjectId], ATTESTATIONS_SINCE)).rows[0];
    return row === undefined ? undefined : { ...row, id: Number(row.id) };
  },
  /** The evidence blobs a handoff row cites (artifact rows linked to it), in id order. */
  *citedBlobs(handoffId: number): Op<BlobCitation[]> {
    const text =
      'SELECT artifact_path AS path, sha256 FROM evidence WHERE handoff_id = $1 AND artifact_path IS NOT NULL ORDER BY id';
    return (yield* q<BlobCitation>(text, [handoffId])).rows;
  },
};

export const recordWrites = {
  *insertReceipt(row: ReceiptRow): Op<void> {
    const params = RECEIPT_COLUMNS.map((_, i) => `$${i + 1}`).join(', ');
    yield* q(
      `INSERT INTO receipts (${RECEIPT_LIST}) VALUES (${params})`,
      RECEIPT_COLUMNS.map((c) => row[c]),
    );
  },
  *putRejection(r: RejectionPut): Op<void> {
    yield* q(
      `INSERT INTO gate_rejections (key, attempts, tripped, last_codes_json, contract_id, updated_at)
       VALUES ($1, $2, $3, $4, $5, handoff_now())
       ON CONFLICT (key) DO UPDATE SET attempts = excluded.attempts, tripped = excluded.tripped,
         last_codes_json = excluded.last_codes_json, contract_id = excluded.contract_id, updated_at = excluded.updated_at`,
      [r.key, r.attempts, r.tripped ? 1 : 0, JSON.stringify(r.codes), r.contractId],
    );
  },
  /** Reset: an allow verdict forgets the key, tripped or not. */
  *deleteRejection(key: string): Op<number> {
    return (yield* q('DELETE FROM gate_rejections WHERE key = $1', [key])).rowCount;
  },
  /** Appends one statement (src/attest/record.ts), in the transaction that writes what it states. */
  *insertAttestation(a: NewAttestation): Op<void> {
    yield* q(
      `INSERT INTO attestations (kind, subject_id, payload, payload_sha256, signer, key_id, signature)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [a.kind, a.subject_id, a.payload, a.payload_sha256, a.signer, a.key_id, a.signature],
    );
  },
};
