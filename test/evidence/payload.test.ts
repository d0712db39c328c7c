import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeUtf8Strict, filePayload, textPayload } from '../../src/evidence/payload.js';

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
const reader = (bytes: Buffer) => (): Buffer => bytes;

describe('inline or blob', () => {
  it('text: 4096 UTF-8 bytes stay inline, 4097 become a .txt blob', () => {
    const t4096 = 'a'.repeat(4096);
    expect(textPayload(t4096)).toEqual({ storage: 'inline', text: t4096, size: 4096, sha256: sha(Buffer.from(t4096)) });
    const p = textPayload('a'.repeat(4097));
    expect(p.storage === 'blob' && p.ext).toBe('.txt');
  });

  it('text length is measured in UTF-8 bytes, not characters', () => {
    expect(textPayload('é'.repeat(2048)).storage).toBe('inline'); // 4096 bytes
    expect(textPayload(`${'é'.repeat(2048)}x`).storage).toBe('blob'); // 4097 bytes
  });

  it('file: ≤ 4096 valid UTF-8 is inline (decoded), binary or larger is a blob keeping the suffix', () => {
    const ok = Buffer.from('b'.repeat(4096));
    expect(filePayload('/x/out.log', 4096, reader(ok))).toMatchObject({
      storage: 'inline',
      size: 4096,
      sha256: sha(ok),
    });
    const bin = Buffer.from([0xff, 0xfe, 0x00]);
    expect(filePayload('/x/img.png', 3, reader(bin))).toEqual({
      storage: 'blob',
      source: { kind: 'bytes', bytes: bin },
      ext: '.png',
    });
    expect(filePayload('/x/big.log', 4097, reader(Buffer.alloc(0)))).toEqual({
      storage: 'blob',
      source: { kind: 'file', path: '/x/big.log' },
      ext: '.log',
    });
  });

  it('sizes come from the bytes read, not the earlier stat', () => {
    const grown = Buffer.from('c'.repeat(4097));
    expect(filePayload('/x/a.txt', 10, reader(grown)).storage).toBe('blob');
    const shrunk = Buffer.from('abc');
    expect(filePayload('/x/a.txt', 4000, reader(shrunk))).toMatchObject({ storage: 'inline', size: 3 });
  });

  it('a leading BOM is kept as content; an overlong or truncated sequence is not UTF-8', () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf, 0x68, 0x69]);
    expect(decodeUtf8Strict(bom)).toBe('\ufeffhi');
    expect(Buffer.from(decodeUtf8Strict(bom) ?? '', 'utf8')).toEqual(bom);
    expect(decodeUtf8Strict(Buffer.from([0xc0, 0xaf]))).toBeUndefined();
    expect(decodeUtf8Strict(Buffer.from([0xe2, 0x82]))).toBeUndefined();
    expect(decodeUtf8Strict(Buffer.from([0xed, 0xa0, 0x80]))).toBeUndefined(); // a lone surrogate
  });
});
