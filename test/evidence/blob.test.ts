import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { blobExtension, discardBlob, mintBlobName, writeBlob } from '../../src/evidence/blob.js';
import { snapshot } from '../helpers/cli.js';
import { failure } from '../helpers/evidence.js';

let home: string;
let root: string;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'handoff-blob-'));
  root = join(home, 'evidence');
});

const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');

describe('writeBlob', () => {
  it('writes bytes at <root>/<segments>/<name> with 0700 dirs and a 0600 file, and reports digest and size', () => {
    const bytes = Buffer.from('x'.repeat(5000));
    const name = mintBlobName('.txt');
    expect(name).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\.txt$/);
    const blob = writeBlob({ evidenceRoot: root, segments: ['ws', 'brief', 'AC-1'], name }, { kind: 'bytes', bytes });
    expect(blob.path).toBe(join(root, 'ws', 'brief', 'AC-1', name));
    expect(readFileSync(blob.path)).toEqual(bytes);
    expect({ sha256: blob.sha256, size: blob.size }).toEqual({ sha256: sha(bytes), size: 5000 });
    expect(statSync(blob.path).mode & 0o777).toBe(0o600);
    for (const d of ['', 'ws', 'ws/brief', 'ws/brief/AC-1']) expect(statSync(join(root, d)).mode & 0o777).toBe(0o700);
    expect(blob.createdDirs).toEqual([
      root,
      join(root, 'ws'),
      join(root, 'ws', 'brief'),
      join(root, 'ws', 'brief', 'AC-1'),
    ]);
    expect(readdirSync(join(root, 'ws', 'brief', 'AC-1'))).toEqual([name]);
  });

  it('streams a file source and hashes it', () => {
    const src = join(home, 'big.bin');
    const bytes = Buffer.alloc(200_000, 7);
    writeFileSync(src, bytes);
    const blob = writeBlob(
      { evidenceRoot: root, segments: ['ws', 'b', 'a'], name: 'x.bin' },
      { kind: 'file', path: src },
    );
    expect({ sha256: blob.sha256, size: blob.size }).toEqual({ sha256: sha(bytes), size: 200_000 });
  });

  it('serves the receipt layout <root>/<ws>/_receipts/<receipt_id>/stdout', () => {
    const blob = writeBlob(
      { evidenceRoot: root, segments: ['ws', '_receipts', 'R-0123456789abcdef'], name: 'stdout' },
      { kind: 'bytes', bytes: Buffer.from('out') },
    );
    expect(blob.path).toBe(join(root, 'ws', '_receipts', 'R-0123456789abcdef', 'stdout'));
  });

  it('refuses a symlinked evidence root: DATA_ROOT_UNSAFE, exit 4, nothing written there', () => {
    const real = join(home, 'real-evidence');
    mkdirSync(real);
    symlinkSync(real, root);
    const before = snapshot(home);
    const err = failure(() =>
      writeBlob(
        { evidenceRoot: root, segments: ['ws', 'b', 'a'], name: 'x.txt' },
        { kind: 'bytes', bytes: Buffer.from('1') },
      ),
    );
    expect({ code: err?.code, exit: err?.exit }).toEqual({ code: 'DATA_ROOT_UNSAFE', exit: 4 });
    expect(snapshot(home)).toEqual(before);
  });

  it('refuses a symlinked segment (workspace pointing outside) with EVIDENCE_PATH_ESCAPE and writes nothing anywhere', () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'handoff-elsewhere-'));
    mkdirSync(root);
    symlinkSync(elsewhere, join(root, 'ws'));
    const before = { home: snapshot(home), elsewhere: snapshot(elsewhere) };
    const err = failure(() =>
      writeBlob(
        { evidenceRoot: root, segments: ['ws', 'b', 'a'], name: 'x.txt' },
        { kind: 'bytes', bytes: Buffer.from('1') },
      ),
    );
    expect({ code: err?.code, exit: err?.exit }).toEqual({ code: 'EVIDENCE_PATH_ESCAPE', exit: 1 });
    expect({ home: snapshot(home), elsewhere: snapshot(elsewhere) }).toEqual(before);
  });

  it('refuses a brief folder that links to another brief folder inside the root', () => {
    mkdirSync(join(root, 'ws', 'other', 'AC-1'), { recursive: true });
    symlinkSync(join(root, 'ws', 'other'), join(root, 'ws', 'brief'));
    const before = snapshot(home);
    const err = failure(() =>
      writeBlob(
        { evidenceRoot: root, segments: ['ws', 'brief', 'AC-1'], name: 'x.txt' },
        { kind: 'bytes', bytes: Buffer.from('1') },
      ),
    );
    expect(err?.code).toBe('EVIDENCE_PATH_ESCAPE');
    expect(snapshot(home)).toEqual(before);
    expect(lstatSync(join(root, 'ws', 'brief')).isSymbolicLink()).toBe(true);
  });

  it('a segment that is a regular file is an escape too, and the directories it created are removed', () => {
    mkdirSync(join(root, 'ws'), { recursive: true });
    writeFileSync(join(root, 'ws', 'brief'), 'not a dir');
    const before = snapshot(home);
    const err = failure(() =>
      writeBlob(
        { evidenceRoot: root, segments: ['ws', 'brief', 'a'], name: 'x' },
        { kind: 'bytes', bytes: Buffer.from('1') },
      ),
    );
    expect(err?.code).toBe('EVIDENCE_PATH_ESCAPE');
    expect(snapshot(home)).toEqual(before);
  });

  it('a source that vanished fails with UNREADABLE_INPUT and leaves nothing (no temp, no dirs)', () => {
    const before = snapshot(home);
    const err = failure(() =>
      writeBlob(
        { evidenceRoot: root, segments: ['ws', 'b', 'a'], name: 'x.bin' },
        { kind: 'file', path: join(home, 'gone') },
      ),
    );
    expect({ code: err?.code, exit: err?.exit }).toEqual({ code: 'UNREADABLE_INPUT', exit: 2 });
    expect(snapshot(home)).toEqual(before);
  });

  it('a source swapped for a directory is never read: INPUT_NOT_REGULAR, nothing left', () => {
    mkdirSync(join(home, 'dir'));
    const err = failure(() =>
      writeBlob(
        { evidenceRoot: root, segments: ['ws', 'b', 'a'], name: 'x.bin' },
        { kind: 'file', path: join(home, 'dir') },
      ),
    );
    expect(err?.code).toBe('INPUT_NOT_REGULAR');
    expect(snapshot(home)).toEqual({ 'dir/': { size: 0, mtimeMs: 0, content: '' } });
  });

  it('never overwrites an existing file of the final name (EVIDENCE_WRITE_FAILED, exit 4)', () => {
    mkdirSync(join(root, 'ws', 'b', 'a'), { recursive: true });
    writeFileSync(join(root, 'ws', 'b', 'a', 'x.txt'), 'first');
    const before = snapshot(home);
    const err = failure(() =>
      writeBlob(
        { evidenceRoot: root, segments: ['ws', 'b', 'a'], name: 'x.txt' },
        { kind: 'bytes', bytes: Buffer.from('2') },
      ),
    );
    expect({ code: err?.code, exit: err?.exit }).toEqual({ code: 'EVIDENCE_WRITE_FAILED', exit: 4 });
    expect(snapshot(home)).toEqual(before);
  });

  it('discardBlob restores the evidence tree byte-identically and keeps sibling blobs', () => {
    const sibling = writeBlob(
      { evidenceRoot: root, segments: ['ws', 'b', 'AC-1'], name: 'keep.txt' },
      { kind: 'bytes', bytes: Buffer.from('k') },
    );
    const before = snapshot(home);
    const a = writeBlob(
      { evidenceRoot: root, segments: ['ws', 'b', 'AC-1'], name: 'a.txt' },
      { kind: 'bytes', bytes: Buffer.from('a') },
    );
    const b = writeBlob(
      { evidenceRoot: root, segments: ['ws', 'c', 'AC-9'], name: 'b.txt' },
      { kind: 'bytes', bytes: Buffer.from('b') },
    );
    discardBlob(a);
    discardBlob(b);
    expect(snapshot(home)).toEqual(before);
    expect(readFileSync(sibling.path, 'utf8')).toBe('k');
  });

  it('discardBlob of the first blob also removes the evidence root it created', () => {
    const before = snapshot(home);
    discardBlob(
      writeBlob(
        { evidenceRoot: root, segments: ['ws', 'b', 'a'], name: 'a.txt' },
        { kind: 'bytes', bytes: Buffer.from('a') },
      ),
    );
    expect(snapshot(home)).toEqual(before);
  });
});

describe('blobExtension', () => {
  it.each([
    ['report.txt', '.txt'],
    ['shot.PNG', '.PNG'],
    ['a.tar.gz', '.gz'],
    ['x.$(rm -rf ~)', '.bin'],
    [`x.${'a'.repeat(40)}`, '.bin'],
    [`x.${'a'.repeat(16)}`, `.${'a'.repeat(16)}`],
    ['noext', '.bin'],
    ['.bashrc', '.bin'],
    ['x.', '.bin'],
    ['x.tx t', '.bin'],
    ['dir.d/file', '.bin'],
    ['x.é', '.bin'],
  ])('%j -> %s', (name, ext) => expect(blobExtension(name)).toBe(ext));
});
