import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { claimTokenHash, claimTokenMatches, mintClaimToken } from '../../src/dispatch/claim-token.js';
import { sha256Hex } from '../../src/sha256.js';

const reference = (data: Uint8Array): string => createHash('sha256').update(data).digest('hex');

describe('claim tokens without node:crypto', () => {
  it('the SHA-256 matches node:crypto at every padding boundary and on random inputs', () => {
    expect(sha256Hex(new Uint8Array(0))).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex(Buffer.from('abc'))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    for (let n = 0; n <= 300; n++) {
      const data = randomBytes(n);
      expect(sha256Hex(data), `${n} bytes`).toBe(reference(data));
    }
    const big = randomBytes(70_000);
    expect(sha256Hex(big)).toBe(reference(big));
  });

  it('a minted token is hct_ and 32 random bytes; its hash is its sha256; only the right token matches', () => {
    const a = mintClaimToken();
    const b = mintClaimToken();
    expect(a).toMatch(/^hct_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a.slice(4), 'base64url')).toHaveLength(32);
    expect(b).not.toBe(a);
    expect(claimTokenHash(a)).toBe(createHash('sha256').update(a, 'utf8').digest('hex'));
    expect(claimTokenHash('é')).toBe(createHash('sha256').update('é', 'utf8').digest('hex'));
    expect(claimTokenMatches(a, claimTokenHash(a))).toBe(true);
    expect(claimTokenMatches(b, claimTokenHash(a))).toBe(false);
    expect(claimTokenMatches(a, claimTokenHash(a).slice(1))).toBe(false);
  });
});
