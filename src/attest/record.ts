/**
 * Storing a statement as it happens: the payload always, its DSSE signature when a key is given. Runs inside the
 * caller's store transaction (it may run again on a busy store: it only writes through `t`).
 */
import type { SigningKey } from '../keys/key-file.js';
import type { ReceiptRow } from '../receipts/row.js';
import type { ApprovalRow } from '../store/approvals.js';
import type { HandoffRow } from '../store/handoff-row.js';
import type { StoreReads, StoreTx } from '../store/store.js';
import { signPayload } from './dsse.js';
import {
  approvalStatement,
  GENESIS,
  handoffStatement,
  payloadOf,
  receiptStatement,
  sha256Hex,
  type AttestKind,
  type Statement,
} from './statement.js';

export interface Signer {
  key: SigningKey;
  role: 'store' | 'approver';
}

export async function recordStatement(
  t: StoreTx,
  kind: AttestKind,
  subjectId: string,
  statement: Statement,
  signer: Signer | undefined,
): Promise<string> {
  const payload = payloadOf(statement);
  const digest = sha256Hex(payload);
  await t.insertAttestation({
    kind,
    subject_id: subjectId,
    payload: payload.toString('utf8'),
    payload_sha256: digest,
    signer: signer?.role ?? null,
    key_id: signer?.key.keyId ?? null,
    signature: signer === undefined ? null : signPayload(signer.key, payload),
  });
  return digest;
}

/** The latest stored handoff statement of a contract, as its payload digest and `previous` link. */
export async function latestHandoffDigest(reads: StoreReads, contractId: string): Promise<string | undefined> {
  const rows = await reads.listAttestations('handoff', contractId);
  return rows.length === 0 ? undefined : rows[rows.length - 1].payload_sha256;
}

/**
 * The `previous` link of a finalized row: the payload digest of the latest statement of the nearest earlier finalized
 * row of its chain, "genesis" when there is none. An earlier finalized row without a statement (finalized before
 * statements were stored) gives `unattested:<contract_id>`: export then signs the chain anew from that point.
 */
export async function previousLink(reads: StoreReads, row: HandoffRow): Promise<string> {
  const chain = await reads.wholeChain(row);
  const at = chain.findIndex((r) => r.contract_id === row.contract_id);
  for (let i = at - 1; i >= 0; i--) {
    const r = chain[i];
    if (r.finalized_at === null) continue;
    return (await latestHandoffDigest(reads, r.contract_id)) ?? `unattested:${r.contract_id}`;
  }
  return GENESIS;
}

/** Finalize's statement of the row it just wrote (the row as stored, with the evidence blobs it cites). */
export async function attestFinalized(t: StoreTx, row: HandoffRow, signer: Signer | undefined): Promise<void> {
  const statement = handoffStatement(row, await t.citedBlobs(Number(row.id)), await previousLink(t, row));
  await recordStatement(t, 'handoff', row.contract_id, statement, signer);
}

export const attestReceipt = (t: StoreTx, row: ReceiptRow, signer: Signer | undefined): Promise<string> =>
  recordStatement(t, 'receipt', row.receipt_id, receiptStatement(row), signer);

export const attestApproval = (t: StoreTx, row: ApprovalRow, signer: Signer | undefined): Promise<string> =>
  recordStatement(t, 'approval', row.id, approvalStatement(row), signer);

/**
 * The `used` transition finalize makes on the approval it cites, stated by the store's key in the same transaction
 * (an approver signs approve and revoke; the use is the store's own fact). Nothing when the approval is not `used`
 * or its latest statement already says so.
 */
export async function attestApprovalUse(t: StoreTx, approvalId: string, signer: Signer | undefined): Promise<void> {
  const row = await t.getApproval(approvalId);
  if (row === undefined || (row.status as string) !== 'used') return;
  const latest = (await t.listAttestations('approval', approvalId)).pop();
  if (
    latest !== undefined &&
    (JSON.parse(latest.payload) as { predicate?: { decision?: unknown } }).predicate?.decision === 'used'
  )
    return;
  await attestApproval(t, row, signer);
}
