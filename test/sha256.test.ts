import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256Hex, SMALL_INPUT, smallSha256Hex } from '../src/sha256.js';

const reference = (data: Uint8Array | string): string => createHash('sha256').update(data).digest('hex');

describe('SHA-256 without node:crypto for small inputs', () => {
  it('matches node:crypto on the FIPS 180-4 examples, at every padding boundary and on random inputs', () => {
    expect(smallSha256Hex(new Uint8Array(0))).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(smallSha256Hex(Buffer.from('abc'))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(smallSha256Hex(Buffer.from('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq'))).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
    for (let n = 0; n <= 300; n++) {
      const data = randomBytes(n);
      expect(smallSha256Hex(data), `${n} bytes`).toBe(reference(data));
    }
    // Lengths whose bit count needs more than 32 bits are out of reach here; 70,000 bytes crosses 2^19 bits.
    const big = randomBytes(70_000);
    expect(smallSha256Hex(big)).toBe(reference(big));
  });

  it('hashes a string as its UTF-8 bytes, and gives the same digest on either side of the size it hands over', () => {
    for (const text of ['', 'é', 'naïve ☃ 𝄞', '\0key', 'x'.repeat(1000)])
      expect(sha256Hex(text), text).toBe(reference(text));
    for (const n of [SMALL_INPUT - 1, SMALL_INPUT, SMALL_INPUT + 1, 3 * SMALL_INPUT]) {
      const data = randomBytes(n);
      expect(sha256Hex(data), `${n} bytes`).toBe(reference(data));
      expect(sha256Hex(data.toString('latin1')), `${n} latin1 characters`).toBe(
        reference(Buffer.from(data.toString('latin1'), 'utf8')),
      );
    }
  });
});
