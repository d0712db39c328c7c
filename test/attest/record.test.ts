/** The statements stored as writes happen: payload always, signature with a key; the `used` transition of an approval. */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyPayload } from '../../src/attest/dsse.js';
import { attestApprovalUse, recordStatement } from '../../src/attest/record.js';
import { approvalStatement, payloadOf, sha256Hex } from '../../src/attest/statement.js';
import { keyIdOf, type SigningKey } from '../../src/keys/key-file.js';
import type { NewAttestation } from '../../src/store/attestations.js';
import type { StoreTx } from '../../src/store/store.js';

function key(): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { privateKey, publicKey, keyId: keyIdOf(publicKey), type: 'ecdsa-p256', path: 'k' };
}

const approval = (status: string) =>
  ({
    id: `P-${'0'.repeat(32)}`,
    workspace: 'ws',
    agent_id: null,
    contract_id: null,
    status,
    exact_content: 'x',
    fingerprint: sha256Hex('x'),
    created_at: 't',
    decided_at: 't',
    decided_by: 'a',
    decision_note: null,
  }) as never;

function fakeTx(row: unknown, stored: NewAttestation[] = []): { t: StoreTx; written: NewAttestation[] } {
  const written: NewAttestation[] = [];
  const t = {
    getApproval: () => Promise.resolve(row),
    listAttestations: () => Promise.resolve(stored.map((a, i) => ({ ...a, id: i + 1, created_at: 't' }))),
    insertAttestation: (a: NewAttestation) => {
      written.push(a);
      return Promise.resolve();
    },
  } as unknown as StoreTx;
  return { t, written };
}

describe('recordStatement', () => {
  it('stores the canonical payload and its digest; a DSSE signature by the key only when one is given', async () => {
    const k = key();
    const s = approvalStatement(approval('approved'));
    const a = fakeTx(undefined);
    await recordStatement(a.t, 'approval', 'P-1', s, undefined);
    expect(a.written[0]).toMatchObject({
      payload: payloadOf(s).toString('utf8'),
      payload_sha256: sha256Hex(payloadOf(s)),
      signer: null,
      key_id: null,
      signature: null,
    });
    const b = fakeTx(undefined);
    await recordStatement(b.t, 'approval', 'P-1', s, { key: k, role: 'approver' });
    expect(b.written[0]).toMatchObject({ signer: 'approver', key_id: k.keyId });
    expect(verifyPayload(k.publicKey, payloadOf(s), Buffer.from(b.written[0].signature!, 'base64'))).toBe(true);
  });
});

describe('attestApprovalUse', () => {
  it('states a used approval once, signed by the store; nothing for another status or when already stated', async () => {
    const k = key();
    const used = fakeTx(approval('used'));
    await attestApprovalUse(used.t, 'P-1', { key: k, role: 'store' });
    expect(used.written).toHaveLength(1);
    expect(JSON.parse(used.written[0].payload).predicate.decision).toBe('used');
    const again = fakeTx(approval('used'), used.written);
    await attestApprovalUse(again.t, 'P-1', { key: k, role: 'store' });
    expect(again.written).toHaveLength(0);
    const approved = fakeTx(approval('approved'));
    await attestApprovalUse(approved.t, 'P-1', undefined);
    expect(approved.written).toHaveLength(0);
  });
});
