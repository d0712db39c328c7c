/**
 * The tree fingerprint: what the work tree looked like when a receipt was recorded, so finalize can
 * tell that the code changed after the check ran (`RECEIPT_STALE`). Three git calls and one hash per untracked file;
 * on a 10,000-file repository this stays far below a second (scripts/bench-fingerprint.mjs).
 */
import { spawnSync } from 'node:child_process';
import { closeSync, lstatSync, openSync, readlinkSync, readSync, realpathSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path';
import { dataRoot, dbPath } from '../paths.js';

export interface TreeFingerprint {
  /** The commit at HEAD; before the first commit, the empty tree's id (the base the diff was taken against). */
  gitHead: string;
  /**
   * sha256 over `git status --porcelain=v1 -z --untracked-files=all`, `git diff <base> --binary` (base: HEAD, or the
   * empty tree before the first commit, so every tracked file's content counts) and the untracked files.
   */
  treeFingerprint: string;
}

const MAX_GIT_OUTPUT = 1024 * 1024 * 1024;

function git(cwd: string, args: string[], env: NodeJS.ProcessEnv, input?: string): Buffer | undefined {
  try {
    const r = spawnSync('git', ['--no-optional-locks', ...args], {
      cwd,
      env: { ...env, GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C' },
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'ignore'],
      ...(input === undefined ? {} : { input }),
      maxBuffer: MAX_GIT_OUTPUT,
    });
    return r.status === 0 && r.error === undefined ? r.stdout : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The handoff store's own files: the data root (drafts, blobs) and the DB file with its journals. When they live
 * inside the work tree they are left out of the fingerprint, or every draft write would make every receipt stale.
 */
export function storeFiles(env: NodeJS.ProcessEnv, cwd: string = process.cwd()): string[] {
  const db = dbPath(env, cwd);
  return [dataRoot(env, cwd), db, `${db}-wal`, `${db}-shm`, `${db}-journal`];
}

/** `:(exclude,top)` pathspecs for the given absolute paths that lie inside `top` (none: the plain formula). */
function excludeSpecs(top: string, paths: readonly string[]): string[] {
  const specs: string[] = [];
  for (const p of paths) {
    let real: string;
    try {
      real = realpathSync(p);
    } catch {
      try {
        real = join(realpathSync(dirname(p)), basename(p));
      } catch {
        continue;
      }
    }
    const rel = relative(top, real);
    if (rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel))
      specs.push(`:(exclude,top,literal)${rel}`);
  }
  return specs.length > 0 ? ['--', ':(top)', ...specs] : [];
}

const OBJECT_ID_RE = /^[0-9a-f]{40,64}$/;

/**
 * The top level and the base of a work tree without a commit: the empty tree's id in the
 * repository's object format (git computes it; nothing is written). Undefined outside a work tree.
 */
function unbornBase(cwd: string, env: NodeJS.ProcessEnv): { top: string; base: string } | undefined {
  const where = git(cwd, ['rev-parse', '--is-inside-work-tree', '--show-toplevel'], env);
  if (where === undefined) return undefined;
  const [inside, top] = where.toString('utf8').split('\n');
  if (inside !== 'true' || !top) return undefined;
  const tree = git(cwd, ['hash-object', '-t', 'tree', '--stdin'], env, '')?.toString('utf8').trim();
  return tree !== undefined && OBJECT_ID_RE.test(tree) ? { top, base: tree } : undefined;
}

/**
 * The fingerprint of the work tree containing `cwd`, or null when `cwd` is not inside a git work tree (or is gone,
 * or git is unavailable). Before the first commit the diff is taken against the empty tree, so a file staged and then
 * changed again is seen. `exclude`: absolute paths left out (the store's own files, storeFiles()).
 */
export function computeFingerprint(
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
  exclude: readonly string[] = [],
): TreeFingerprint | null {
  const head = git(cwd, ['rev-parse', '--is-inside-work-tree', '--show-toplevel', '--verify', 'HEAD^{commit}'], env);
  let top: string | undefined;
  let commit: string | undefined;
  if (head === undefined) {
    // No commit at HEAD (or not a work tree at all: then there is no base either).
    const unborn = unbornBase(cwd, env);
    if (unborn === undefined) return null;
    ({ top, base: commit } = unborn);
  } else {
    const [inside, t, c] = head.toString('utf8').split('\n');
    if (inside !== 'true') return null;
    [top, commit] = [t, c];
  }
  if (!top || !commit || !OBJECT_ID_RE.test(commit)) return null;
  const specs = excludeSpecs(top, exclude);
  const status = git(cwd, ['status', '--porcelain=v1', '-z', '--untracked-files=all', ...specs], env);
  const diff = git(cwd, ['diff', commit, '--binary', '--no-ext-diff', '--no-textconv', '--no-color', ...specs], env);
  if (status === undefined || diff === undefined) return null;
  const hash = createHash('sha256').update(status).update(diff);
  for (const path of untrackedPaths(status)) hash.update(fileDigest(join(top, path)));
  return { gitHead: commit, treeFingerprint: hash.digest('hex') };
}

/** The `??` entries of porcelain v1 `-z` output, sorted (byte order of their UTF-8 names). */
export function untrackedPaths(status: Buffer): string[] {
  const fields = status.toString('utf8').split('\0');
  const out: string[] = [];
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i];
    if (f.length < 4) continue;
    const xy = f.slice(0, 2);
    if (xy === '??') out.push(f.slice(3));
    // A rename or copy carries its source path as the next field.
    else if (xy.includes('R') || xy.includes('C')) i++;
  }
  return out.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

const CHUNK = 1024 * 1024;
let chunkBuffer: Buffer | undefined;

/** sha256 hex of one untracked entry: a file's bytes, a symlink's target, or a marker for anything else. */
function fileDigest(path: string): string {
  const h = createHash('sha256');
  try {
    const st = lstatSync(path);
    if (st.isSymbolicLink()) return h.update(`symlink:${readlinkSync(path)}`).digest('hex');
    if (!st.isFile()) return h.update(`other:${path}`).digest('hex');
    const fd = openSync(path, 'r');
    try {
      chunkBuffer ??= Buffer.allocUnsafe(CHUNK);
      for (;;) {
        const n = readSync(fd, chunkBuffer, 0, CHUNK, null);
        if (n === 0) break;
        h.update(chunkBuffer.subarray(0, n));
      }
    } finally {
      closeSync(fd);
    }
    return h.digest('hex');
  } catch (e) {
    return createHash('sha256')
      .update(`unreadable:${(e as NodeJS.ErrnoException).code ?? 'error'}`)
      .digest('hex');
  }
}

/**
 * Staleness: the receipt had a fingerprint and the tree now differs. A moved HEAD counts
 * as a difference too (a clean tree at another commit has the same status and diff).
 */
export function isStale(
  receipt: { cwd: string; git_head: string | null; tree_fingerprint: string | null },
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  return staleJudge(env)(receipt);
}

/**
 * isStale for several receipts in one call: each work tree is fingerprinted once (finalize's `--check` step judges
 * every candidate receipt of every check, mostly of one tree).
 */
export function staleJudge(
  env: NodeJS.ProcessEnv = process.env,
): (receipt: { cwd: string; git_head: string | null; tree_fingerprint: string | null }) => boolean {
  const now = new Map<string, TreeFingerprint | null>();
  return (receipt) => {
    if (receipt.tree_fingerprint === null) return false;
    if (!now.has(receipt.cwd)) now.set(receipt.cwd, computeFingerprint(receipt.cwd, env, storeFiles(env)));
    const f = now.get(receipt.cwd) ?? null;
    return f === null || f.gitHead !== receipt.git_head || f.treeFingerprint !== receipt.tree_fingerprint;
  };
}

/** @public For the benches (scripts/bench-fingerprint.mjs, through dist/): the median wall time (ms) of `runs` fingerprints of `cwd` (after one warm-up run). */
export function benchFingerprint(cwd: string, runs = 5): { medianMs: number; samplesMs: number[] } {
  computeFingerprint(cwd);
  const samplesMs: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    if (computeFingerprint(cwd) === null) throw new Error(`${cwd} is not a git work tree`);
    samplesMs.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  const sorted = [...samplesMs].sort((a, b) => a - b);
  return { medianMs: sorted[Math.floor(sorted.length / 2)], samplesMs };
}
