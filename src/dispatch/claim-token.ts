/**
 * Claim tokens: `dispatch` and `init` print one; the store keeps only its sha256 (an init draft's sidecar until its
 * finalize), and `contract claim` of a contract that has one needs it. 32 random bytes, base64url, prefixed `hct_`.
 *
 * Nothing here loads node:crypto: `contract init` is a hot verb that mints its ids without it (src/ids.ts), so the
 * bytes come from the same kernel source and the digest from the small SHA-256 of src/sha256.ts (a token is far below
 * the size it hands to node:crypto).
 */
import { secureRandomBytes } from '../ids.js';
import { sha256Hex } from '../sha256.js';

export const CLAIM_TOKEN_ENV = 'HANDOFF_CLAIM_TOKEN';

export const mintClaimToken = (): string => `hct_${Buffer.from(secureRandomBytes(32)).toString('base64url')}`;

export const claimTokenHash = (token: string): string => sha256Hex(token);

/** Whether `token` hashes to `sha256`, compared without an early exit on the first differing character. */
export const claimTokenMatches = (token: string, sha256: string): boolean => {
  const a = claimTokenHash(token);
  if (a.length !== sha256.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ sha256.charCodeAt(i);
  return diff === 0;
};
