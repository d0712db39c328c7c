/**
 * Claim tokens: `dispatch` and `init` print one; the store keeps only its sha256, and
 * `contract claim` of a contract that has one needs it. 32 random bytes, base64url, prefixed `hct_`.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const CLAIM_TOKEN_ENV = 'HANDOFF_CLAIM_TOKEN';

export const mintClaimToken = (): string => `hct_${randomBytes(32).toString('base64url')}`;

export const claimTokenHash = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

/** Whether `token` hashes to `sha256` (a constant-time comparison of the two digests). */
export const claimTokenMatches = (token: string, sha256: string): boolean => {
  const a = Buffer.from(claimTokenHash(token), 'hex');
  const b = Buffer.from(sha256, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
};
