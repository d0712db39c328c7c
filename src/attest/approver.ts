/**
 * The approver policy: with `HANDOFF_APPROVER_KEYS` naming a PEM file of trusted public keys, an approval in force
 * (approved or used) must carry a valid signature by one of them on its latest signed decision, over the row's own
 * id and fingerprint. A row forged in the database (a status or content rewritten, an approved row inserted) has no
 * such signature and is refused: APPROVAL_UNSIGNED (no signature by a trusted key), APPROVAL_SIGNATURE_INVALID (a
 * signature that does not verify, or a signed decision that does not match the row). Called from the approval
 * cross-check (src/approvals/store-verdict.ts), so the gate, finalize and validate judge it alike.
 */
import { keyPath, loadPublicKeys, type PublicKeyEntry } from '../keys/key-file.js';
import type { Env } from '../paths.js';
import type { StoreReads } from '../store/store.js';
import type { ValidationError } from '../validator/types.js';
import { verifyPayload } from './dsse.js';

export const IN_FORCE = new Set(['approved', 'used']);

/** The trusted approver keys, or undefined when no policy is set. */
export function approverKeys(env: Env, cwd: string): PublicKeyEntry[] | undefined {
  const raw = env.HANDOFF_APPROVER_KEYS;
  if (raw === undefined || raw.trim() === '') return undefined;
  return loadPublicKeys(keyPath(raw, cwd, 'HANDOFF_APPROVER_KEYS'), 'the approver keys (HANDOFF_APPROVER_KEYS)');
}

interface SignedDecision {
  approval_id?: unknown;
  fingerprint?: unknown;
  decision?: unknown;
}

export type ApproverFinding = { code: 'APPROVAL_UNSIGNED' | 'APPROVAL_SIGNATURE_INVALID'; detail: string };

/** Judges one approval row (id, fingerprint) against its stored signed decisions. */
export async function judgeApproval(
  reads: Pick<StoreReads, 'listAttestations'>,
  id: string,
  fingerprint: string,
  keys: readonly PublicKeyEntry[],
): Promise<ApproverFinding | undefined> {
  const byId = new Map(keys.map((k) => [k.keyId, k.publicKey]));
  let latest: SignedDecision | undefined;
  let forged = false;
  for (const row of await reads.listAttestations('approval', id)) {
    const key = row.key_id === null ? undefined : byId.get(row.key_id);
    if (key === undefined || row.signature === null) continue;
    if (!verifyPayload(key, Buffer.from(row.payload, 'utf8'), Buffer.from(row.signature, 'base64'))) {
      forged = true;
      continue;
    }
    try {
      latest = (JSON.parse(row.payload) as { predicate?: SignedDecision }).predicate ?? {};
    } catch {
      forged = true;
    }
  }
  if (latest === undefined) {
    return forged
      ? {
          code: 'APPROVAL_SIGNATURE_INVALID',
          detail: `approval ${id} carries a signature by a trusted approver key that does not verify`,
        }
      : {
          code: 'APPROVAL_UNSIGNED',
          detail: `approval ${id} is in force but no trusted approver key (HANDOFF_APPROVER_KEYS) signed its decision`,
        };
  }
  if (
    latest.approval_id !== id ||
    latest.fingerprint !== fingerprint ||
    typeof latest.decision !== 'string' ||
    !IN_FORCE.has(latest.decision)
  ) {
    const what =
      latest.fingerprint !== fingerprint
        ? 'a different content fingerprint'
        : `the decision ${JSON.stringify(latest.decision)}`;
    return {
      code: 'APPROVAL_SIGNATURE_INVALID',
      detail: `the latest signed decision on approval ${id} states ${what}, not the approval the store holds`,
    };
  }
  return undefined;
}

/** The cross-check's finding as a validation error (codes registered in src/codes/attest.ts). */
export const asValidationError = (f: ApproverFinding): ValidationError =>
  ({ code: f.code, path: 'approval_request.approval_id', detail: f.detail }) as unknown as ValidationError;
