/**
 * Id minting (src/ids.ts): every id comes from nanoid over its documented alphabet and length, with
 * secure random bytes (the kernel's, else WebCrypto), and keeps its documented format over many mints.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { AGENT_ID_RE, DRAFT_ID_RE, RECEIPT_ID_RE } from '../src/envelope/patterns.js';
import { mintBlobName, TEMP_NAME_RE } from '../src/evidence/blob.js';
import {
  checkAgentId,
  checkDraftId,
  fillSecureRandom,
  KERNEL_RANDOM,
  mintAgentId,
  mintApprovalId,
  mintDraftId,
  mintLockToken,
  mintReceiptId,
  mintTempTag,
  mintToken,
  mintUuid,
  secureRandomBytes,
} from '../src/ids.js';
import { mintReceiptId as receiptIdOfRecord } from '../src/receipts/record.js';

const nanoid = vi.hoisted(() => ({
  calls: [] as [string, number, unknown][],
  unique: [] as [string, number | undefined][],
  alphabetCalls: 0,
}));
vi.mock('nanoid', async (importOriginal) => {
  const real = await importOriginal<typeof import('nanoid')>();
  return {
    ...real,
    customRandom: (alphabet: string, size: number, random: (bytes: number) => Uint8Array) => {
      nanoid.calls.push([alphabet, size, random]);
      return real.customRandom(alphabet, size, random);
    },
    customAlphabet: (alphabet: string, size?: number) => {
      nanoid.alphabetCalls++;
      return real.customAlphabet(alphabet, size);
    },
  };
});
vi.mock('nanoid/non-secure', async (importOriginal) => {
  const real = await importOriginal<typeof import('nanoid/non-secure')>();
  return {
    ...real,
    customAlphabet: (alphabet: string, size?: number) => {
      nanoid.unique.push([alphabet, size]);
      return real.customAlphabet(alphabet, size);
    },
  };
});

const HEX = '0123456789abcdef';
const N = 4000;
const many = (mint: () => string): string[] => Array.from({ length: N }, mint);

/** Every character of `alphabet` shows up at every position `positions` of the samples. */
function coversAlphabet(samples: string[], positions: number[], alphabet: string): boolean {
  return positions.every((p) => [...alphabet].every((c) => samples.some((s) => s[p] === c)));
}
const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, i) => from + i);

describe('nanoid minting', () => {
  it("every generator is nanoid's customRandom over a documented alphabet and length, fed secure random bytes", () => {
    expect(nanoid.calls.map(([alphabet, size]) => [alphabet, size])).toEqual([
      [HEX, 16],
      [HEX, 12],
      [HEX, 32],
      [HEX, 30],
      ['89ab', 1],
    ]);
    for (const [, , random] of nanoid.calls) expect(random).toBe(secureRandomBytes);
    // customAlphabet would read WebCrypto, which loads node:crypto: no generator is made with it.
    expect(nanoid.alphabetCalls).toBe(0);
  });

  it('the temp tag and the lock token, which only have to be unique, come from the non-secure generator', () => {
    expect(nanoid.unique).toEqual([
      [HEX, 8],
      [HEX, 16],
    ]);
  });

  it.each([
    ['agent id', mintAgentId, /^a[0-9a-f]{16}$/, range(1, 17)],
    ['draft token', mintToken, /^[0-9a-f]{12}$/, range(0, 12)],
    ['receipt id', mintReceiptId, /^R-[0-9a-f]{16}$/, range(2, 18)],
    ['approval id', mintApprovalId, /^P-[0-9a-f]{32}$/, range(2, 34)],
    ['lock token', mintLockToken, /^[0-9a-f]{16}$/, range(0, 16)],
    ['temp tag', mintTempTag, /^[0-9a-f]{8}$/, range(0, 8)],
  ])('%s: the documented format, every hex digit at every position, no repeat', (_name, mint, format, positions) => {
    const ids = many(mint);
    for (const id of ids) expect(id).toMatch(format);
    expect(coversAlphabet(ids, positions, HEX)).toBe(true);
    expect(new Set(ids).size).toBe(N);
  });

  it('the random bytes are read from the kernel: /dev/urandom is a character device on this machine', () => {
    expect(KERNEL_RANDOM).toBe('/dev/urandom');
    const a = new Uint8Array(64);
    const b = new Uint8Array(64);
    const spy = vi.spyOn(globalThis.crypto, 'getRandomValues');
    fillSecureRandom(a);
    fillSecureRandom(b);
    expect(spy).not.toHaveBeenCalled();
    spy.mockRestore();
    expect(a.some((x) => x !== 0)).toBe(true);
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(false);
  });

  it('a device that is missing, or a regular file in its place, is not read: the bytes come from WebCrypto', () => {
    const dir = mkdtempSync(join(tmpdir(), 'handoff-random-'));
    const planted = join(dir, 'urandom');
    writeFileSync(planted, Buffer.alloc(64, 7));
    for (const device of [planted, join(dir, 'missing')]) {
      const spy = vi.spyOn(globalThis.crypto, 'getRandomValues');
      const bytes = new Uint8Array(64);
      fillSecureRandom(bytes, device);
      expect(spy, device).toHaveBeenCalledTimes(1);
      spy.mockRestore();
      expect(Buffer.from(bytes).equals(Buffer.alloc(64, 7)), device).toBe(false);
      expect(
        bytes.some((x) => x !== 0),
        device,
      ).toBe(true);
    }
  });

  it('secureRandomBytes hands each byte out once, in and beyond its pool', () => {
    const seen = [secureRandomBytes(16), secureRandomBytes(16), secureRandomBytes(600)];
    expect(seen.map((b) => b.length)).toEqual([16, 16, 600]);
    expect(Buffer.from(seen[0]).equals(Buffer.from(seen[1]))).toBe(false);
  });

  it("agent, draft and receipt ids pass the tool's own checks", () => {
    for (let i = 0; i < 500; i++) {
      const agent = mintAgentId();
      const draft = mintDraftId(agent);
      expect(AGENT_ID_RE.test(agent) && DRAFT_ID_RE.test(draft) && RECEIPT_ID_RE.test(mintReceiptId())).toBe(true);
      expect(draft.startsWith(`${agent}.`)).toBe(true);
      expect(checkAgentId(agent)).toBe(agent);
      expect(checkDraftId(draft)).toBe(draft);
    }
    expect(receiptIdOfRecord).toBe(mintReceiptId);
  });

  it('uuid: lower-case hyphenated v4 with the RFC 4122 variant, as crypto.randomUUID prints it', () => {
    const ids = many(mintUuid);
    const v4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    for (const id of ids) expect(id).toMatch(v4);
    const free = [...range(0, 8), ...range(9, 13), ...range(15, 18), ...range(20, 23), ...range(24, 36)];
    expect(coversAlphabet(ids, free, HEX)).toBe(true);
    expect(coversAlphabet(ids, [19], '89ab')).toBe(true);
    expect(new Set(ids).size).toBe(N);
    expect(crypto.randomUUID()).toMatch(v4);
  });

  it('evidence blob names and their temp files keep their formats', () => {
    for (let i = 0; i < 500; i++) {
      const name = mintBlobName('.txt');
      expect(name).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\.txt$/);
      expect(TEMP_NAME_RE.test(`.${mintUuid()}.tmp`)).toBe(true);
    }
  });
});
