/** The test base's pure parts: the glob language, the default list's reach, the pytest table, the glob sources. */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_TEST_GLOBS, globRegExp, pytestTable, scanTests, testGlobs } from '../../src/dispatch/test-base.js';
import { isHandoffError } from '../../src/errors.js';

const isTest = (path: string): boolean => DEFAULT_TEST_GLOBS.some((g) => globRegExp(g).test(path));

describe('globs', () => {
  it('** spans directories (or none), * and ? stay within one, [..] is a class; the match is whole', () => {
    expect(globRegExp('**/*.test.*').test('a.test.ts')).toBe(true);
    expect(globRegExp('**/*.test.*').test('x/y/a.test.ts')).toBe(true);
    expect(globRegExp('test/**').test('test/a/b.js')).toBe(true);
    expect(globRegExp('test/**').test('src/test/a.js')).toBe(false);
    expect(globRegExp('*.txt').test('a/b.txt')).toBe(false);
    expect(globRegExp('a?c').test('abc')).toBe(true);
    expect(globRegExp('a?c').test('a/c')).toBe(false);
    expect(globRegExp('[ab].js').test('b.js')).toBe(true);
    expect(globRegExp('[!ab].js').test('b.js')).toBe(false);
    expect(globRegExp('a.b').test('axb')).toBe(false);
    expect(globRegExp('a[b').test('a[b')).toBe(true);
  });

  it("the default list reaches each ecosystem's conventions, and not ordinary sources", () => {
    for (const p of [
      'src/app.test.ts',
      'web/button.spec.jsx',
      'lib/__tests__/x.js',
      'test/helpers/a.ts',
      'tests/test_api.py',
      'pkg/test_util.py',
      'pkg/util_test.py',
      'conftest.py',
      'svc/handler_test.go',
      'svc/testdata/in.json',
      'benches/b.rs',
      'src/test/java/AppTest.java',
      'app/src/main/FooTest.java',
      'm/BarTest.kt',
      'Proj.Tests/CalcTests.cs',
      'Proj/CalcTest.cs',
      'spec/models/user_spec.rb',
      'vitest.config.ts',
      'jest.config.js',
      'playwright.config.ts',
      '.mocharc.yml',
      'karma.conf.js',
      'pytest.ini',
      'tox.ini',
      '.rspec',
    ])
      expect(isTest(p), p).toBe(true);
    for (const p of ['src/app.ts', 'lib/testing.py', 'src/lib.rs', 'package.json', 'docs/test.md', 'Main.java'])
      expect(isTest(p), p).toBe(false);
  });
});

describe('pytest table', () => {
  it('is the lines of [tool.pytest.ini_options] up to the next header; absent without it', () => {
    const text =
      '[project]\nname = "p"\n\n[tool.pytest.ini_options]\naddopts = "-q"   \n\ntestpaths = ["t"]\n[tool.ruff]\nx = 1\n';
    expect(pytestTable(text)).toBe('addopts = "-q"\ntestpaths = ["t"]');
    expect(pytestTable('[ tool . pytest . ini_options ]  # c\na = 1\n')).toBe('a = 1');
    expect(pytestTable('[project]\nname = "p"\n')).toBeUndefined();
  });
});

describe('which globs', () => {
  const usageOf = (f: () => unknown): string | undefined => {
    try {
      f();
    } catch (e) {
      return isHandoffError(e) ? e.code : 'other';
    }
    return undefined;
  };

  it('--tests, else HANDOFF_TEST_GLOBS (comma-separated, blanks dropped), else the default list', () => {
    expect(testGlobs(['a/**', 'a/**', 'b'], { HANDOFF_TEST_GLOBS: 'x' })).toEqual(['a/**', 'b']);
    expect(testGlobs([], { HANDOFF_TEST_GLOBS: ' x/** , ,y' })).toEqual(['x/**', 'y']);
    expect(testGlobs([], { HANDOFF_TEST_GLOBS: ' ' })).toEqual([...DEFAULT_TEST_GLOBS]);
    expect(testGlobs([], {})).toEqual([...DEFAULT_TEST_GLOBS]);
  });

  it('refuses globs that leave the work directory, are absolute, blank or hold controls (USAGE)', () => {
    for (const bad of ['../x', 'a/../../b', '/abs/**', 'a\\b', '', ' ', 'a\nb', 'x'.repeat(1025)])
      expect(
        usageOf(() => testGlobs([bad], {})),
        JSON.stringify(bad),
      ).toBe('USAGE');
    expect(usageOf(() => testGlobs([], { HANDOFF_TEST_GLOBS: 'ok,../no' }))).toBe('USAGE');
  });
});

describe('the stat cache of a scan', () => {
  const FUTURE = BigInt(Date.now() + 3_600_000) * 1_000_000n;
  const repoWith = (files: Record<string, string>): string => {
    const dir = mkdtempSync(join(tmpdir(), 'handoff-scan-'));
    execFileSync('git', ['init', '-q'], { cwd: dir });
    for (const [p, text] of Object.entries(files)) writeFileSync(join(dir, p), text);
    return dir;
  };
  const digest = (text: string): string => createHash('sha256').update(text).digest('hex');

  it('keeps the digest of a file whose stat key is unchanged, and reads one whose key moved', () => {
    const dir = repoWith({ 'a.t': 'one', 'b.t': 'two' });
    const first = scanTests(dir, ['*.t'], process.env, { since: FUTURE })!;
    expect(first.files).toEqual({ 'a.t': digest('one'), 'b.t': digest('two') });
    // A prior whose digests are not the files': an unchanged key keeps the prior's digest unread.
    const prior = { files: { 'a.t': 'x'.repeat(64), 'b.t': 'y'.repeat(64) }, stat: first.stat };
    expect(scanTests(dir, ['*.t'], process.env, { prior, since: FUTURE })!.files).toEqual(prior.files);
    writeFileSync(join(dir, 'b.t'), 'two, weakened');
    expect(scanTests(dir, ['*.t'], process.env, { prior, since: FUTURE })!.files).toEqual({
      'a.t': 'x'.repeat(64),
      'b.t': digest('two, weakened'),
    });
  });

  it('reads a racily clean file (changed within two seconds of the scan) again, whatever its key', () => {
    const dir = repoWith({ 'a.t': 'one' });
    const first = scanTests(dir, ['*.t'], process.env)!;
    expect(first.stat['a.t']).toMatch(/^racy:/);
    const prior = { files: { 'a.t': 'x'.repeat(64) }, stat: first.stat };
    expect(scanTests(dir, ['*.t'], process.env, { prior })!.files).toEqual({ 'a.t': digest('one') });
  });

  it('outside git there is no scan', () => {
    expect(scanTests(mkdtempSync(join(tmpdir(), 'handoff-scan-')), ['*.t'], process.env)).toBeUndefined();
  });
});
