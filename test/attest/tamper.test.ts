/**
 * Tampering with an export: random byte flips in every line (seeded, so every run checks the same cases), and lines
 * dropped, swapped, duplicated, truncated and forked. Every case is caught, with its code and line. Verification
 * runs in-process (the same service the verb calls) so hundreds of cases stay quick.
 */
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundleSignedNow, lineText } from '../../src/attest/bundle.js';
import { envelopeDigest, payloadOf, sha256Hex, type Statement } from '../../src/attest/statement.js';
import { verifyExport, type VerifyOutcome } from '../../src/attest/verify.js';
import { keyIdOf, type SigningKey } from '../../src/keys/key-file.js';
import { runOk, signedChain, type SignedChain } from '../helpers/attest.js';

/** mulberry32: a small seeded generator (deterministic cases). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ATTEST_CODES = ['ATTEST_FORMAT', 'ATTEST_SIGNATURE', 'ATTEST_DIGEST', 'ATTEST_CHAIN'];

describe('attest verify catches every tampering', () => {
  let c: SignedChain;
  let lines: string[];
  let dir: string;
  let n = 0;
  const verify = (text: string | Buffer, extra: { blobs?: string } = {}): VerifyOutcome => {
    const file = join(dir, `case-${n++}.jsonl`);
    writeFileSync(file, text);
    return verifyExport({}, dir, { file, keys: [c.storeKey.public_key, c.approverKey.public_key], ...extra });
  };
  const joined = (ls: string[]): string => `${ls.join('\n')}\n`;
  const storeKey = (): SigningKey => {
    const privateKey = createPrivateKey(readFileSync(c.storeKey.private_key));
    const publicKey = createPublicKey(privateKey);
    return { privateKey, publicKey, keyId: keyIdOf(publicKey), type: 'ecdsa-p256', path: c.storeKey.private_key };
  };
  const statementAt = (i: number): Statement =>
    JSON.parse(Buffer.from(JSON.parse(lines[i]).dsseEnvelope.payload, 'base64').toString('utf8'));
  const signed = async (s: Statement): Promise<string> =>
    lineText(await bundleSignedNow(payloadOf(s), storeKey()), 'at-write');

  beforeAll(() => {
    c = signedChain();
    dir = join(c.home, 'cases');
    mkdirSync(dir);
    const file = join(c.home, 'chain.jsonl');
    runOk(c.home, ['attest', 'export', '--chain', c.first, '--out', file], c.env);
    lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(6);
  });

  it('the untouched file verifies', () => {
    expect(verify(joined(lines))).toMatchObject({ ok: true, lines: 6 });
  });

  it('40 random byte flips in every line: each caught at that line', () => {
    const random = prng(0x5eed);
    const seen = new Set<string>();
    for (let i = 0; i < lines.length; i++) {
      for (let k = 0; k < 40; k++) {
        const bytes = Buffer.from(lines[i], 'utf8');
        const at = Math.floor(random() * bytes.length);
        bytes[at] ^= 1 + Math.floor(random() * 255);
        const out = verify(
          Buffer.concat([
            Buffer.from(
              lines
                .slice(0, i)
                .map((l) => `${l}\n`)
                .join(''),
            ),
            bytes,
            Buffer.from(
              `\n${lines
                .slice(i + 1)
                .map((l) => `${l}\n`)
                .join('')}`,
            ),
          ]),
        );
        expect(out.ok, `line ${i + 1} byte ${at}`).toBe(false);
        if (out.ok) continue;
        expect(ATTEST_CODES).toContain(out.code);
        expect(out.line, `line ${i + 1} byte ${at}: ${out.code} ${out.message}`).toBe(i + 1);
        seen.add(out.code);
      }
    }
    expect(seen.has('ATTEST_FORMAT') && seen.has('ATTEST_SIGNATURE')).toBe(true);
  });

  it('every line dropped: ATTEST_CHAIN', () => {
    for (let i = 0; i < lines.length; i++) {
      const out = verify(joined(lines.filter((_, j) => j !== i)));
      expect(out, `drop ${i + 1}`).toMatchObject({ ok: false, code: 'ATTEST_CHAIN' });
    }
  });

  it('every pair of neighbours swapped: ATTEST_CHAIN', () => {
    for (let i = 0; i + 1 < lines.length; i++) {
      const ls = [...lines];
      [ls[i], ls[i + 1]] = [ls[i + 1], ls[i]];
      expect(verify(joined(ls)), `swap ${i + 1}/${i + 2}`).toMatchObject({ ok: false, code: 'ATTEST_CHAIN' });
    }
  });

  it('every line duplicated: ATTEST_CHAIN at the copy (a handoff copy is a second successor)', () => {
    for (let i = 0; i < lines.length; i++) {
      const ls = [...lines.slice(0, i + 1), lines[i], ...lines.slice(i + 1)];
      const out = verify(joined(ls));
      expect(out, `duplicate ${i + 1}`).toMatchObject({ ok: false, code: 'ATTEST_CHAIN' });
      if (i < 3) expect(out).toMatchObject({ line: i + 2 });
    }
  });

  it('truncated: the head cut off is ATTEST_CHAIN; a cut inside a line is ATTEST_FORMAT at that line', () => {
    expect(verify(joined(lines.slice(0, -1)))).toMatchObject({ ok: false, code: 'ATTEST_CHAIN', line: 5 });
    expect(verify(joined(lines.slice(0, 2)))).toMatchObject({ ok: false, code: 'ATTEST_CHAIN', line: 2 });
    const text = joined(lines);
    const random = prng(7);
    for (let k = 0; k < 30; k++) {
      const cut = 1 + Math.floor(random() * (text.length - 2));
      const out = verify(text.slice(0, cut));
      expect(out.ok, `cut at ${cut}`).toBe(false);
      if (!out.ok) expect(['ATTEST_FORMAT', 'ATTEST_CHAIN']).toContain(out.code);
    }
    expect(verify('')).toMatchObject({ ok: false, code: 'ATTEST_CHAIN', line: 1 });
  });

  it('a fork signed with the right key (same previous, other envelope) is ATTEST_CHAIN at the second successor', async () => {
    const s = statementAt(1);
    const envelope = { ...(s.predicate.envelope as object), forged: true };
    const forged: Statement = {
      ...s,
      subject: [{ name: s.subject[0].name, digest: { sha256: envelopeDigest(envelope) } }],
      predicate: { ...s.predicate, envelope },
    };
    const fork = await signed(forged);
    expect(verify(joined([...lines.slice(0, 2), fork, ...lines.slice(2)]))).toMatchObject({
      ok: false,
      code: 'ATTEST_CHAIN',
      line: 3,
    });
    expect(verify(joined([...lines.slice(0, 5), fork, lines[5]]))).toMatchObject({
      ok: false,
      code: 'ATTEST_CHAIN',
      line: 6,
    });
    // The fork in place of the real line: the next line no longer follows.
    expect(verify(joined([lines[0], fork, ...lines.slice(2)]))).toMatchObject({
      ok: false,
      code: 'ATTEST_CHAIN',
      line: 3,
    });
  });

  it('a statement signed with the right key but a wrong subject digest is ATTEST_DIGEST', async () => {
    const s = statementAt(0);
    const bad: Statement = { ...s, subject: [{ name: s.subject[0].name, digest: { sha256: 'f'.repeat(64) } }] };
    expect(verify(joined([await signed(bad), ...lines.slice(1)]))).toMatchObject({
      ok: false,
      code: 'ATTEST_DIGEST',
      line: 1,
    });
    const r = statementAt(3);
    const badReceipt: Statement = {
      ...r,
      predicate: { ...r.predicate, result: 'PASSED', receipt: { ...(r.predicate.receipt as object), outcome: 'fail' } },
    };
    expect(verify(joined([...lines.slice(0, 3), await signed(badReceipt), ...lines.slice(4)]))).toMatchObject({
      ok: false,
      code: 'ATTEST_DIGEST',
      line: 4,
    });
  });

  it('--blobs: a missing blob is ATTEST_BLOB_MISSING, altered bytes ATTEST_DIGEST', async () => {
    const bytes = Buffer.from('coverage report\n');
    const sha = sha256Hex(bytes);
    const s = statementAt(0);
    const withBlob: Statement = {
      ...s,
      subject: [...s.subject, { name: '/evidence/ws/report.txt', digest: { sha256: sha } }],
    };
    const text = joined([await signed(withBlob), ...lines.slice(1)]);
    const blobs = join(dir, 'blobs');
    mkdirSync(blobs);
    expect(verify(text, { blobs })).toMatchObject({ ok: false, code: 'ATTEST_BLOB_MISSING', line: 1 });
    writeFileSync(join(blobs, sha), 'other bytes');
    expect(verify(text, { blobs })).toMatchObject({ ok: false, code: 'ATTEST_DIGEST', line: 1 });
    writeFileSync(join(blobs, sha), bytes);
    // The blob now matches; this line replaced the real one, so the chain no longer links at line 2.
    expect(verify(text, { blobs })).toMatchObject({ ok: false, code: 'ATTEST_CHAIN', line: 2 });
    expect(verify(joined(lines), { blobs })).toMatchObject({ ok: true, blobsChecked: 0 });
  });
});
