import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { checkCanonicalPath, isStrictlyBelow } from '../../src/evidence/canonical-path.js';

let home: string;
let root: string;
let blob: string;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'handoff-canon-'));
  root = join(home, 'evidence');
  mkdirSync(join(root, 'ws', 'brief', 'AC-1'), { recursive: true });
  blob = join(root, 'ws', 'brief', 'AC-1', 'x.txt');
  writeFileSync(blob, 'hello');
});

const detail = (p: unknown): string => {
  const r = checkCanonicalPath(p, root);
  return r.ok ? 'ok' : r.detail;
};

describe('canonical-path rule', () => {
  it('accepts a blob below the root and returns the resolved path', () => {
    expect(checkCanonicalPath(blob, root)).toEqual({ ok: true, real: blob });
  });

  it('accepts a path spelled with ".." or through an inner symlink that resolves below the root, stored resolved', () => {
    expect(checkCanonicalPath(join(root, 'ws', 'brief', '..', 'brief', 'AC-1', 'x.txt'), root)).toEqual({
      ok: true,
      real: blob,
    });
    symlinkSync(blob, join(root, 'ws', 'alias.txt'));
    expect(checkCanonicalPath(join(root, 'ws', 'alias.txt'), root)).toEqual({ ok: true, real: blob });
  });

  it('accepts a symlinked evidence root (the root itself is resolved)', () => {
    const link = join(home, 'evidence-link');
    symlinkSync(root, link);
    expect(checkCanonicalPath(join(link, 'ws', 'brief', 'AC-1', 'x.txt'), link)).toEqual({ ok: true, real: blob });
  });

  it.each([
    ['', 'must be a non-empty string'],
    [5, 'must be a non-empty string'],
    [null, 'must be a non-empty string'],
    ['/tmp/a\0b', 'must be a non-empty string'],
    ['evidence/ws/b/AC-1/x.txt', 'must be an absolute path'],
    ['~/x', 'must be an absolute path'],
    ['file:///etc/passwd', 'must be an absolute path'],
  ])('refuses %j: %s', (p, want) => expect(detail(p)).toContain(want));

  it('refuses when the evidence root does not exist', () => {
    expect(checkCanonicalPath(blob, join(home, 'nope'))).toMatchObject({
      ok: false,
      detail: expect.stringContaining('no evidence has been deposited'),
    });
  });

  it('refuses outside paths, prefix look-alikes and symlinks leading out', () => {
    for (const d of ['evidence-old', 'evidence2']) {
      mkdirSync(join(home, d));
      writeFileSync(join(home, d, 'x'), 'x');
      expect(detail(join(home, d, 'x'))).toContain('resolves outside the evidence root');
    }
    expect(detail('/etc/passwd')).toContain('resolves outside');
    writeFileSync(join(home, 'outside.txt'), 'x');
    symlinkSync(join(home, 'outside.txt'), join(root, 'ws', 'link.txt'));
    expect(detail(join(root, 'ws', 'link.txt'))).toContain('resolves outside');
    symlinkSync(home, join(root, 'ws', 'dirlink'));
    expect(detail(join(root, 'ws', 'dirlink', 'outside.txt'))).toContain('resolves outside');
  });

  it('refuses the root itself, a directory below it, a missing file and an overlong path', () => {
    for (const p of [root, `${root}/`, join(root, 'ws', '..')]) expect(detail(p)).toContain('evidence root itself');
    expect(detail(join(root, 'ws', 'brief'))).toContain('not a regular file');
    expect(detail(join(root, 'ws', 'brief', 'AC-1', 'missing.txt'))).toContain('does not exist');
    expect(detail(`/${'a'.repeat(5000)}`)).toMatch(/cannot be resolved|does not exist/);
    expect(detail(join(root, 'ws', 'brief', 'AC-1', 'x.txt', 'below-a-file'))).toContain('does not exist');
  });

  it('compares segments, not string prefixes', () => {
    expect(isStrictlyBelow('/r/evidence', '/r/evidence2/x')).toBe(false);
    expect(isStrictlyBelow('/r/evidence', '/r/evidence-old/x')).toBe(false);
    expect(isStrictlyBelow('/r/evidence', '/r/evidence/..x')).toBe(true);
    expect(isStrictlyBelow('/r/evidence', '/r/evidence')).toBe(false);
  });
});
