import { describe, expect, it } from 'vitest';
import { displayCommand, shellQuote } from '../../src/receipts/quote.js';
import { canonicalJson, sha256Hex } from '../../src/receipts/jcs.js';
import {
  computeRowSha256,
  exitToken,
  formatDuration,
  outcomeOf,
  receiptJson,
  receiptSummary,
} from '../../src/receipts/row.js';
import { SpillArea, StreamCapture, INLINE_MAX_BYTES } from '../../src/receipts/capture.js';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sampleRow } from '../helpers/receipts.js';

describe('shell quoting of the display string', () => {
  it.each([
    ['npm', 'npm'],
    ['--flag=a,b', '--flag=a,b'],
    ['', "''"],
    ['a b', "'a b'"],
    ["it's", "'it'\\''s'"],
    ['$HOME', "'$HOME'"],
    ['x;rm -rf /', "'x;rm -rf /'"],
    ['é', "'é'"],
    ['a\nb', "'a\nb'"],
  ])('%j → %s', (arg, quoted) => {
    expect(shellQuote(arg)).toBe(quoted);
  });

  it('joins argv, keeps a shell string as given', () => {
    expect(displayCommand(['npm', 'run', 'test:unit', '--', 'a b'], false)).toBe("npm run test:unit -- 'a b'");
    expect(displayCommand(['npm test && echo "ok"'], true)).toBe('npm test && echo "ok"');
  });
});

describe('RFC 8785 canonical JSON', () => {
  it('sorts keys by UTF-16 code units (RFC 8785 section 3.2.3 example)', () => {
    const obj = {
      '\u20ac': 'Euro Sign',
      '\r': 'Carriage Return',
      '\ufb33': 'Hebrew Letter Dalet With Dagesh',
      '1': 'One',
      '\ud83d\ude00': 'Emoji: Grinning Face',
      '\u0080': 'Control',
      '\u00f6': 'Latin Small Letter O With Diaeresis',
    };
    // (Object.keys would list the integer-like key first; read the order from the text.)
    const text = canonicalJson(obj);
    const order = ['\r', '1', '\u0080', '\u00f6', '\u20ac', '\ud83d\ude00', '\ufb33'].map((k) =>
      text.indexOf(`${JSON.stringify(k)}:`),
    );
    expect(order.every((pos, i) => pos >= 0 && (i === 0 || pos > order[i - 1]))).toBe(true);
  });

  it('serializes primitives as RFC 8785 section 3.2.2 (example of the RFC)', () => {
    const input = JSON.parse(
      '{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],"string":"\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/","literals":[null,true,false]}',
    ) as unknown;
    expect(canonicalJson(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it('has no whitespace, nests, and refuses what JSON cannot hold', () => {
    expect(canonicalJson({ b: [1, { d: null, c: 'x' }], a: -0 })).toBe('{"a":0,"b":[1,{"c":"x","d":null}]}');
    expect(() => canonicalJson(Number.NaN)).toThrow();
    expect(() => canonicalJson({ a: Infinity })).toThrow();
    expect(() => canonicalJson(10n)).toThrow();
  });
});

describe('receipt row', () => {
  it('row_sha256 is the sha256 of the JCS text of every other column, valued as stored', () => {
    const row = sampleRow();
    const { row_sha256: _omit, ...rest } = row;
    expect(row.row_sha256).toBe(sha256Hex(canonicalJson(rest)));
    expect(computeRowSha256({ ...row, exit_code: 1 })).not.toBe(row.row_sha256);
    expect(computeRowSha256({ ...row, row_sha256: 'x'.repeat(64) })).toBe(row.row_sha256);
  });

  it('outcome is fixed by the exit status alone', () => {
    expect(outcomeOf(0)).toBe('pass');
    expect(outcomeOf(1)).toBe('fail');
    expect(outcomeOf(3)).toBe('unproven');
    expect(outcomeOf(127)).toBe('unproven');
    expect(outcomeOf(null)).toBe('unproven');
  });

  it('exposes argv parsed and the flags as booleans, and summarizes in one line', () => {
    const j = receiptJson(sampleRow({ shell: 1, timed_out: 0 }));
    expect(j.argv).toEqual(['npm', 'test']);
    expect(j.shell).toBe(true);
    expect(j.timed_out).toBe(false);
    expect('argv_json' in j).toBe(false);
    expect(receiptSummary(sampleRow())).toBe('R-0123456789abcdef exit=0 outcome=pass 1000ms');
    expect(exitToken({ exit_code: null, signal: 'SIGTERM', timed_out: 1 })).toBe('timeout');
    expect(exitToken({ exit_code: null, signal: 'SIGKILL', timed_out: 0 })).toBe('signal:SIGKILL');
    expect(exitToken({ exit_code: null, signal: null, timed_out: 0 })).toBe('not-started');
    expect(formatDuration(12_345)).toBe('12.3s');
  });
});

/** A spill area in a fresh temp folder (the CLI's is <root>/tmp). */
const spillArea = (parent: string = mkdtempSync(join(tmpdir(), 'spill-parent-'))): SpillArea =>
  new SpillArea(() => parent);

describe('stream capture', () => {
  it('keeps up to 4096 bytes inline, with text when valid UTF-8 (a BOM is content)', () => {
    const c = new StreamCapture('stdout', spillArea());
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('x'.repeat(INLINE_MAX_BYTES - 3))]);
    c.push(bytes.subarray(0, 100));
    c.push(bytes.subarray(100));
    const r = c.finish();
    expect(r.bytes).toBe(4096);
    expect(r.text).toBe(bytes.toString('utf8'));
    expect(Buffer.from(r.text as string, 'utf8').equals(bytes)).toBe(true);
    expect(r.sha256).toBe(sha256Hex(bytes));
    expect(r.spillPath).toBeUndefined();
  });

  it('flags invalid UTF-8, including a multi-byte character split across chunks only when it is broken', () => {
    const ok = new StreamCapture('stdout', spillArea());
    const euro = Buffer.from('€', 'utf8');
    ok.push(euro.subarray(0, 1));
    ok.push(euro.subarray(1));
    expect(ok.finish().utf8).toBe(true);
    const bad = new StreamCapture('stdout', spillArea());
    bad.push(Buffer.from([0x61, 0xff]));
    const r = bad.finish();
    expect(r.utf8).toBe(false);
    expect(r.text).toBeUndefined();
    expect(r.buffer?.length).toBe(2);
    const truncated = new StreamCapture('stdout', spillArea());
    truncated.push(euro.subarray(0, 2));
    expect(truncated.finish().utf8).toBe(false);
  });

  it('spills beyond 4096 bytes to a temp file holding every byte, removed by the spill area', () => {
    const area = spillArea();
    const c = new StreamCapture('stdout', area);
    const chunks = [Buffer.alloc(4000, 'a'), Buffer.alloc(200, 'b'), Buffer.alloc(10_000, 'c')];
    for (const b of chunks) c.push(b);
    const r = c.finish();
    expect(r.bytes).toBe(14_200);
    expect(r.text).toBeUndefined();
    expect(r.spillPath).toBeDefined();
    expect(readFileSync(r.spillPath as string).equals(Buffer.concat(chunks))).toBe(true);
    expect(r.sha256).toBe(sha256Hex(Buffer.concat(chunks)));
    c.discard();
    area.discard();
    expect(existsSync(r.spillPath as string)).toBe(false);
  });

  it('spills into spill-<pid>-<random>/ under the given folder, removed by the area', () => {
    const parent = mkdtempSync(join(tmpdir(), 'spill-parent-'));
    const area = spillArea(parent);
    const c = new StreamCapture('stdout', area);
    c.push(Buffer.alloc(5000, 'a'));
    const r = c.finish();
    expect(r.spillPath).toMatch(new RegExp(`^${parent}/spill-${process.pid}-[A-Za-z0-9]+/stdout$`));
    c.discard();
    area.discard();
    expect(readdirSync(parent)).toEqual([]);
  });

  it('a spill that cannot be written is recorded as a failure, never thrown', () => {
    const c = new StreamCapture('stdout', new SpillArea(() => join(tmpdir(), 'no-such-folder', 'tmp')));
    c.push(Buffer.alloc(4096, 'a'));
    expect(c.failure).toBeUndefined();
    expect(() => c.push(Buffer.alloc(10, 'b'))).not.toThrow();
    expect(c.failure).toMatch(/cannot spill the captured stdout to the data root: ENOENT/);
    expect(() => c.push(Buffer.alloc(10, 'c'))).not.toThrow();
    expect(c.finish().bytes).toBe(4106);
  });
});
