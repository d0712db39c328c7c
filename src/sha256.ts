/**
 * SHA-256 (FIPS 180-4) as lowercase hex, without loading node:crypto for small inputs. Loading node:crypto makes Node
 * compile and run dozens of its internal modules (keys, x509, ciphers, streams): about a tenth of a bare `node -e 0`,
 * paid by every call that takes one small digest (an allowed stop naming its counter file, finalize's two statement
 * digests). Up to SMALL_INPUT bytes the digest is computed here; a larger input, where the loop below (run by the
 * interpreter in a short-lived process: about 25 microseconds a 64-byte block) would cost more than that load, goes
 * to node:crypto (which the bundle requires on first use only). Both give the same digest (test/sha256.test.ts).
 */
import { createHash } from 'node:crypto';

/** The largest input hashed here rather than by node:crypto, in bytes. */
export const SMALL_INPUT = 4096;

/**
 * FIPS 180-4's constants: the first 32 bits of the fractional parts of the cube roots of the first 64 primes (K),
 * and of the square roots of the first 8 (the initial hash value, H0).
 */
const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);
const H0 = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

/** SHA-256 of `data` (a string is hashed as its UTF-8 bytes), lowercase hex. */
export function sha256Hex(data: Uint8Array | string): string {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  if (bytes.length > SMALL_INPUT) return createHash('sha256').update(bytes).digest('hex');
  return smallSha256Hex(bytes);
}

/**
 * The digest computed here, for any length (the tests compare it with node:crypto's beyond SMALL_INPUT too): plain
 * integer locals and one typed array, which the interpreter runs without allocating per round.
 */
export function smallSha256Hex(data: Uint8Array): string {
  const n = data.length;
  // The message, a 1 bit, zeros, and its length in bits (64-bit big-endian), to a multiple of 64 bytes.
  const blocks = ((n + 8) >> 6) + 1;
  const m = new Uint8Array(blocks << 6);
  m.set(data);
  m[n] = 0x80;
  const end = m.length;
  const high = Math.floor(n / 2 ** 29);
  const low = (n * 8) >>> 0;
  m[end - 8] = high >>> 24;
  m[end - 7] = high >>> 16;
  m[end - 6] = high >>> 8;
  m[end - 5] = high;
  m[end - 4] = low >>> 24;
  m[end - 3] = low >>> 16;
  m[end - 2] = low >>> 8;
  m[end - 1] = low;
  const w = new Int32Array(64);
  let h0 = H0[0] | 0;
  let h1 = H0[1] | 0;
  let h2 = H0[2] | 0;
  let h3 = H0[3] | 0;
  let h4 = H0[4] | 0;
  let h5 = H0[5] | 0;
  let h6 = H0[6] | 0;
  let h7 = H0[7] | 0;
  for (let off = 0; off < end; off += 64) {
    for (let i = 0; i < 16; i++) {
      const j = off + i * 4;
      w[i] = (m[j] << 24) | (m[j + 1] << 16) | (m[j + 2] << 8) | m[j + 3];
    }
    for (let i = 16; i < 64; i++) {
      const x = w[i - 15];
      const y = w[i - 2];
      const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
      const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) | 0;
    }
    let a = h0;
    let b = h1;
    let c = h2;
    let d = h3;
    let e = h4;
    let f = h5;
    let g = h6;
    let h = h7;
    for (let i = 0; i < 64; i++) {
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const t1 = (h + S1 + ((e & f) ^ (~e & g)) + K[i] + w[i]) | 0;
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const t2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      h = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
    h5 = (h5 + f) | 0;
    h6 = (h6 + g) | 0;
    h7 = (h7 + h) | 0;
  }
  return hex(h0) + hex(h1) + hex(h2) + hex(h3) + hex(h4) + hex(h5) + hex(h6) + hex(h7);
}

const hex = (x: number): string => (x >>> 0).toString(16).padStart(8, '0');
