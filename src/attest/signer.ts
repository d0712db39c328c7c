/** Who signs a write: the store's key (`HANDOFF_SIGNING_KEY`), or an approver's own key (`approval decide --key`). */
import { keyPath, loadSigningKey, storeSigningKey } from '../keys/key-file.js';
import type { Env } from '../paths.js';
import type { Signer } from './record.js';

/** The store's signer, undefined without a configured key; KEY_UNSAFE / KEY_INVALID / UNREADABLE_INPUT (exit 2). */
export function storeSigner(env: Env, cwd: string): Signer | undefined {
  const key = storeSigningKey(env, cwd);
  return key === undefined ? undefined : { key, role: 'store' };
}

/** `approval decide --key PATH`, else the store's key. */
export function decisionSigner(env: Env, cwd: string, keyFlag: string | undefined): Signer | undefined {
  if (keyFlag === undefined) return storeSigner(env, cwd);
  return { key: loadSigningKey(keyPath(keyFlag, cwd, '--key'), "the approver's key (--key)"), role: 'approver' };
}
