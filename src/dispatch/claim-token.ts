/**
 * Claim tokens: `dispatch` and `init` print one; the store keeps only its sha256 (an init draft's sidecar until its
 * finalize), and `contract claim` of a contract that has one needs it. 32 random bytes, base64url, prefixed `hct_`.
 *
 * Nothing here loads node:crypto: `contract init` is a hot verb that mints its ids without it (src/ids.ts), so the
 * bytes come from the same kernel source and the digest from the small SHA-256 below (checked against node:crypto
 * by test/dispatch/claim-token.test.ts). Only 32-byte tokens and their digests pass through it: speed is no concern.
 */
import { secureRandomBytes } from '../ids.js';

export const CLAIM_TOKEN_ENV = 'HANDOFF_CLAIM_TOKEN';

export const mintClaimToken = (): string => `hct_${Buffer.from(secureRandomBytes(32)).toString('base64url')}`;

export const claimTokenHash = (token: string): string => sha256Hex(Buffer.from(token, 'utf8'));

/** Whether `token` hashes to `sha256`, compared without an early exit on the first differing character. */
export const claimTokenMatches = (token: string, sha256: string): boolean => {
  const a = claimTokenHash(token);
  if (a.length !== sha256.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ sha256.charCodeAt(i);
  return diff === 0;
};

/** The first `n` primes. */
function primes(n: number): number[] {
  const out: number[] = [];
  for (let k = 2; out.length < n; k++) if (out.every((p) => k % p !== 0)) out.push(k);
  return out;
}

/** The first 32 bits of the fractional part of `x` (FIPS 180-4's constants: roots of the first primes). */
const frac32 = (x: number): number => Math.floor((x - Math.floor(x)) * 2 ** 32) >>> 0;

let K: Uint32Array | undefined;
let H0: Uint32Array | undefined;

const rotr = (x: number, n: number): number => (x >>> n) | (x << (32 - n));

/** SHA-256 (FIPS 180-4) of `data`, lowercase hex. */
export function sha256Hex(data: Uint8Array): string {
  K ??= Uint32Array.from(primes(64), (p) => frac32(Math.cbrt(p)));
  H0 ??= Uint32Array.from(primes(8), (p) => frac32(Math.sqrt(p)));
  // The message, a 1 bit, zeros, and its length in bits (64-bit big-endian), to a multiple of 64 bytes.
  const padded = new Uint8Array((((data.length + 8) >> 6) + 1) << 6);
  padded.set(data);
  padded[data.length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(data.length / 2 ** 29));
  view.setUint32(padded.length - 4, (data.length * 8) >>> 0);
  const h = Uint32Array.from(H0);
  const w = new Uint32Array(64);
  for (let off = 0; off < padded.length; off += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(off + i * 4);
    for (let i = 16; i < 64; i++) {
      const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
      const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    let [a, b, c, d, e, f, g, k] = h;
    for (let i = 0; i < 64; i++) {
      const t1 = (k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i]) >>> 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      k = g;
      g = f;
      f = e;
      e = (d + t1) >>> 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) >>> 0;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += k;
  }
  return Array.from(h, (x) => x.toString(16).padStart(8, '0')).join('');
}
