/**
 * The turn's test base: at dispatch, in the work directory (`--workdir`, default the working
 * directory), git HEAD, the tree fingerprint and the sha256 of each test file among the files `git ls-files -co
 * --exclude-standard` lists there, selected by the globs (`--tests GLOB`, else HANDOFF_TEST_GLOBS, else the default
 * list). Two values stand for files too: `package.json`'s `scripts.test` and `pyproject.toml`'s
 * `[tool.pytest.ini_options]` table (their own sha256, under a `#` path), so a change to the test command or to
 * pytest's options counts as a modified test file. Finalize scans the same way (src/finalize/test-changes.ts).
 *
 * Paths are relative to the work directory, as git lists them there (`/`-separated); the globs match them whole.
 */
import { execFile, spawnSync } from 'node:child_process';
import { closeSync, lstatSync, openSync, readFileSync, readlinkSync, readSync, realpathSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join, resolve } from 'node:path';
import { HandoffError, jsonQuote, usage } from '../errors.js';
import type { Env } from '../paths.js';
import { computeFingerprint, storeFiles } from '../receipts/fingerprint.js';

/** The exact default list: test files of the common ecosystems, then the runners' configs. */
export const DEFAULT_TEST_GLOBS: readonly string[] = [
  '**/*.test.*',
  '**/*.spec.*',
  '**/__tests__/**',
  'test/**',
  'tests/**',
  'spec/**',
  '**/test_*.py',
  '**/*_test.py',
  '**/conftest.py',
  '**/*_test.go',
  '**/testdata/**',
  'benches/**',
  'src/test/**',
  '**/*Test.java',
  '**/*Test.kt',
  '**/*Tests.cs',
  '**/*Test.cs',
  'vitest.config.*',
  'jest.config.*',
  'playwright.config.*',
  '.mocharc*',
  'karma.conf.*',
  'pytest.ini',
  'tox.ini',
  '.rspec',
];

/** The entries that stand for a value inside a file, not for the file. */
export const SCRIPTS_TEST_ENTRY = 'package.json#scripts.test';
export const PYTEST_ENTRY = 'pyproject.toml#tool.pytest.ini_options';

/** What dispatch stores on the row (`test_base_json`); `files` null: the work directory was not in a git work tree. */
export interface TestBase {
  workdir: string;
  git_head: string | null;
  tree_fingerprint: string | null;
  globs: string[];
  protect: boolean;
  /** path → sha256, or null outside git (`test_changes: "unknown"`). */
  files: Record<string, string> | null;
  /** path → the stat key of the file when it was hashed (finalize re-reads only the files whose key moved). */
  stat?: Record<string, string>;
}

const MAX_GLOB_CHARS = 1024;
const MAX_GLOBS = 256;

/** One glob: relative, `/`-separated, no `..` segment, no control character, at most 1024 characters. */
export function checkGlob(glob: string, where: string): string {
  const bad = (why: string): never => {
    throw usage(`${where} ${jsonQuote(glob)} ${why}`);
  };
  if (glob.trim() === '') bad('is blank');
  if (glob.length > MAX_GLOB_CHARS) bad(`is longer than ${MAX_GLOB_CHARS} characters`);
  if ([...glob].some((ch) => (ch.codePointAt(0) as number) < 0x20 || ch === '\x7f')) bad('holds a control character');
  if (glob.startsWith('/') || glob.includes('\\')) bad('must be relative to the work directory, with / separators');
  if (glob.split('/').includes('..')) bad('must not hold a .. segment');
  return glob;
}

/** The globs of a dispatch: `--tests` (repeatable), else HANDOFF_TEST_GLOBS (comma-separated), else the default. */
export function testGlobs(flags: readonly string[], env: Env): string[] {
  const from = (list: readonly string[], where: string): string[] => {
    if (list.length > MAX_GLOBS) throw usage(`${where} gives more than ${MAX_GLOBS} globs`);
    return [...new Set(list.map((g) => checkGlob(g, where)))];
  };
  if (flags.length > 0) return from(flags, '--tests');
  const raw = env.HANDOFF_TEST_GLOBS;
  if (raw !== undefined && raw.trim() !== '') {
    return from(
      raw
        .split(',')
        .map((g) => g.trim())
        .filter((g) => g !== ''),
      'HANDOFF_TEST_GLOBS',
    );
  }
  return [...DEFAULT_TEST_GLOBS];
}

const workdirError = (raw: string, why: string): HandoffError =>
  new HandoffError(
    'CWD_NOT_FOUND',
    `--workdir ${jsonQuote(raw)} ${why}; nothing was dispatched`,
    { workdir: raw },
    'Pass an existing directory (the work tree the agent changes), or leave --workdir out to use the current one.',
  );

/** `--workdir`: an existing directory, as its real path (default: the caller's working directory). */
export function resolveWorkdir(raw: string | undefined, cwd: string): string {
  if (raw === undefined) return realpathSync(cwd);
  if (raw === '') throw workdirError(raw, 'names no directory');
  let real: string;
  try {
    real = realpathSync(resolve(cwd, raw));
  } catch {
    throw workdirError(raw, 'does not exist');
  }
  if (!statSync(real).isDirectory()) throw workdirError(raw, 'is not a directory');
  return real;
}

/** A glob as an anchored expression: `**` any number of segments, `*` and `?` within one, `[…]` a class. */
export function globRegExp(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      const atStart = i === 0 || glob[i - 1] === '/';
      if (atStart && glob[i + 2] === '/') {
        out += '(?:.*/)?';
        i += 2;
      } else {
        out += '.*';
        i += 1;
      }
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end === -1) out += '\\[';
      else {
        let body = glob.slice(i + 1, end);
        if (body.startsWith('!')) body = `^${body.slice(1)}`;
        out += `[${body.replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else out += c.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

export const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

let chunk: Buffer | undefined;

/** sha256 of a regular file's bytes or a symlink's target; undefined when it is gone or anything else. */
export function entryDigest(path: string): string | undefined {
  try {
    const st = lstatSync(path);
    if (st.isSymbolicLink()) return sha256(`symlink:${readlinkSync(path)}`);
    if (!st.isFile()) return undefined;
    const h = createHash('sha256');
    const fd = openSync(path, 'r');
    try {
      chunk ??= Buffer.allocUnsafe(1024 * 1024);
      for (;;) {
        const n = readSync(fd, chunk, 0, chunk.length, null);
        if (n === 0) break;
        h.update(chunk.subarray(0, n));
      }
    } finally {
      closeSync(fd);
    }
    return h.digest('hex');
  } catch {
    return undefined;
  }
}

const LS_FILES = ['--no-optional-locks', 'ls-files', '-co', '--exclude-standard', '-z'];
const gitOptions = (dir: string, env: Env) => ({
  cwd: dir,
  env: { ...env, GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C' },
  stdio: ['ignore', 'pipe', 'ignore'] as ['ignore', 'pipe', 'ignore'],
  maxBuffer: 1024 * 1024 * 1024,
});
const parseListing = (out: Buffer): string[] => [...new Set(out.toString('utf8').split('\0'))].filter((p) => p !== '');

/** The files `git ls-files -co --exclude-standard` lists in `dir` (relative to it), or undefined outside git. */
export function listedFiles(dir: string, env: Env): string[] | undefined {
  try {
    const r = spawnSync('git', LS_FILES, gitOptions(dir, env));
    return r.status === 0 && r.error === undefined ? parseListing(r.stdout) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * listedFiles without blocking: finalize starts it early and reads it at its test step, so git runs while finalize
 * does its other checks. Never rejects (undefined for any failure).
 */
export function listFilesLater(dir: string, env: Env): Promise<string[] | undefined> {
  return new Promise((done) => {
    try {
      execFile('git', LS_FILES, { ...gitOptions(dir, env), encoding: 'buffer' }, (err, stdout) =>
        done(err === null ? parseListing(stdout) : undefined),
      );
    } catch {
      done(undefined);
    }
  });
}

/** `scripts.test` of the package.json in `dir`, as JSON text; undefined when there is none (or no readable JSON). */
function scriptsTest(dir: string): string | undefined {
  try {
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as unknown;
    const scripts = pkg !== null && typeof pkg === 'object' ? (pkg as Record<string, unknown>).scripts : undefined;
    const test =
      scripts !== null && typeof scripts === 'object' ? (scripts as Record<string, unknown>).test : undefined;
    return test === undefined ? undefined : JSON.stringify(test);
  } catch {
    return undefined;
  }
}

const TOML_HEADER = /^\s*\[\[?\s*([^[\]#]+?)\s*\]\]?\s*(?:#.*)?$/;

/**
 * The lines of pyproject.toml's `[tool.pytest.ini_options]` table (trailing blanks trimmed, blank lines dropped),
 * up to the next table header; undefined when the file or the table is absent.
 */
export function pytestTable(text: string): string | undefined {
  const lines = text.split(/\r?\n/);
  let inTable = false;
  let found = false;
  const out: string[] = [];
  for (const line of lines) {
    const header = TOML_HEADER.exec(line);
    if (header !== null) {
      const name = header[1].replace(/\s*\.\s*/g, '.').replace(/"/g, '');
      inTable = name === 'tool.pytest.ini_options';
      found ||= inTable;
      continue;
    }
    if (inTable && line.trim() !== '') out.push(line.trimEnd());
  }
  return found ? out.join('\n') : undefined;
}

function pytestOptions(dir: string): string | undefined {
  try {
    return pytestTable(readFileSync(join(dir, 'pyproject.toml'), 'utf8'));
  } catch {
    return undefined;
  }
}

/** What a scan gives: path → sha256, and path → the stat key each digest was read at (see statKey). */
export interface Scan {
  files: Record<string, string>;
  stat: Record<string, string>;
}

/**
 * An entry's stat key: inode, size, mode, and the modification and change times in nanoseconds. A file whose key
 * is unchanged since it was hashed is not read again (git decides what to re-read the same way); the change time
 * moves with every write and every `touch`, and only the kernel sets it.
 */
function statKey(path: string, since: bigint): string | undefined {
  try {
    const st = lstatSync(path, { bigint: true });
    // Racily clean (as git calls it): changed within the clock's grain of the scan, a later write could leave the
    // same key on a file system with coarse times. Such a file gets a key no later scan matches: it is read again.
    if (st.ctimeNs >= since || st.mtimeNs >= since) return `racy:${st.ino}`;
    return `${st.ino}:${st.size}:${st.mode}:${st.mtimeNs}:${st.ctimeNs}`;
  } catch {
    return undefined;
  }
}

/** Two seconds before now, in nanoseconds: files changed after it are racily clean. */
const racyLimit = (): bigint => BigInt(Date.now() - 2000) * 1_000_000n;

export interface ScanOptions {
  /** An earlier scan (finalize passes the base): its paths are looked at too, listed or not, and unchanged keys kept. */
  prior?: Scan;
  /** Files changed at or after it (ns) are racily clean (default: two seconds ago). */
  since?: bigint;
  /** The listing, when the caller already has it (listFilesLater); undefined: listed here. */
  listed?: string[];
}

/**
 * The test files of `dir` now: the listed files the globs select (plus the two values), or undefined outside git.
 * With a prior scan, its paths are looked at too (a test made ignored or dropped from the index still counts, and a
 * work tree git no longer answers for is still compared on them), and a path whose stat key is unchanged keeps its
 * digest unread.
 */
export function scanTests(dir: string, globs: readonly string[], env: Env, o: ScanOptions = {}): Scan | undefined {
  const { prior, since = racyLimit() } = o;
  const listed = o.listed ?? listedFiles(dir, env);
  if (listed === undefined && prior === undefined) return undefined;
  // One expression for all globs: one test per listed path (10,000 paths × 25 globs otherwise).
  const re = new RegExp(globs.map((g) => globRegExp(g).source).join('|'));
  const wanted = new Set(
    prior === undefined ? [] : Object.keys(prior.files).filter((p) => p !== SCRIPTS_TEST_ENTRY && p !== PYTEST_ENTRY),
  );
  for (const p of listed ?? []) if (re.test(p)) wanted.add(p);
  const out: Scan = { files: {}, stat: {} };
  for (const p of [...wanted].sort()) {
    // git lists normalized relative paths under `dir` (a real path): joined as text, not by path.join per file.
    const path = `${dir}/${p}`;
    const key = statKey(path, since);
    if (key === undefined) continue;
    const known = !key.startsWith('racy:') && prior?.stat[p] === key ? prior.files[p] : undefined;
    // Read after the stat: a write between the two changes the key the next scan sees, never hides behind it.
    const digest = known ?? entryDigest(path);
    if (digest === undefined) continue;
    out.files[p] = digest;
    out.stat[p] = key;
  }
  // Without a listing (git gone at finalize), the two values are read when the base had them.
  const set = new Set(listed ?? Object.keys(prior?.files ?? {}).map((p) => p.split('#')[0]));
  if (set.has('package.json')) {
    const v = scriptsTest(dir);
    if (v !== undefined) out.files[SCRIPTS_TEST_ENTRY] = sha256(v);
  }
  if (set.has('pyproject.toml')) {
    const v = pytestOptions(dir);
    if (v !== undefined) out.files[PYTEST_ENTRY] = sha256(v);
  }
  return out;
}

/** The base of a dispatch in `workdir` (a real path). */
export function takeTestBase(workdir: string, globs: string[], protect: boolean, env: Env, cwd: string): TestBase {
  const scan = scanTests(workdir, globs, env);
  const files = scan?.files ?? null;
  const fp = files === null ? null : computeFingerprint(workdir, env, storeFiles(env, cwd));
  return {
    workdir,
    git_head: fp?.gitHead ?? null,
    tree_fingerprint: fp?.treeFingerprint ?? null,
    globs,
    protect,
    files,
    ...(scan === undefined ? {} : { stat: scan.stat }),
  };
}
