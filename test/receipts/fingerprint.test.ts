import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { computeFingerprint, isStale, storeFiles, untrackedPaths } from '../../src/receipts/fingerprint.js';

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@t',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@t',
};
const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' });

function repo(): string {
  const dir = mkdtempSync(join(tmpdir(), 'handoff-fp-'));
  git(dir, 'init', '-q');
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, 'src', 'a.ts'), 'export const a = 1;\n');
  writeFileSync(join(dir, 'README'), 'hello\n');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'init');
  return dir;
}

describe('tree fingerprint', () => {
  it('records HEAD and a digest that is stable while nothing changes, from any folder of the tree', () => {
    const dir = repo();
    const fp = computeFingerprint(dir);
    expect(fp).not.toBeNull();
    expect(fp?.gitHead).toBe(git(dir, 'rev-parse', 'HEAD').trim());
    expect(fp?.treeFingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(computeFingerprint(dir)).toEqual(fp);
    expect(computeFingerprint(join(dir, 'src'))).toEqual(fp);
  });

  it('changes with a tracked edit, a staged change, an untracked file and its content; reverts back', () => {
    const dir = repo();
    const base = computeFingerprint(dir);
    writeFileSync(join(dir, 'src', 'a.ts'), 'export const a = 2;\n');
    const edited = computeFingerprint(dir);
    expect(edited?.treeFingerprint).not.toBe(base?.treeFingerprint);
    git(dir, 'add', 'src/a.ts');
    expect(computeFingerprint(dir)?.treeFingerprint).not.toBe(base?.treeFingerprint);
    git(dir, 'reset', '-q', '--hard');
    expect(computeFingerprint(dir)).toEqual(base);

    writeFileSync(join(dir, 'new.txt'), 'one');
    const untracked = computeFingerprint(dir);
    expect(untracked?.treeFingerprint).not.toBe(base?.treeFingerprint);
    writeFileSync(join(dir, 'new.txt'), 'two');
    expect(computeFingerprint(dir)?.treeFingerprint).not.toBe(untracked?.treeFingerprint);
    rmSync(join(dir, 'new.txt'));
    expect(computeFingerprint(dir)).toEqual(base);
  });

  it('ignores what .gitignore ignores; hashes an untracked symlink by its target', () => {
    const dir = repo();
    writeFileSync(join(dir, '.gitignore'), 'build/\n');
    git(dir, 'add', '.gitignore');
    git(dir, 'commit', '-q', '-m', 'ignore');
    const base = computeFingerprint(dir);
    mkdirSync(join(dir, 'build'));
    writeFileSync(join(dir, 'build', 'out.js'), 'x');
    expect(computeFingerprint(dir)).toEqual(base);
    symlinkSync('/nonexistent/target', join(dir, 'link'));
    const linked = computeFingerprint(dir);
    expect(linked?.treeFingerprint).not.toBe(base?.treeFingerprint);
  });

  it('is null outside a work tree and for a folder that is gone', () => {
    const outside = mkdtempSync(join(tmpdir(), 'handoff-fp-none-'));
    expect(computeFingerprint(outside)).toBeNull();
    expect(computeFingerprint(join(outside, 'missing'))).toBeNull();
  });

  it('before the first commit: diffs against the empty tree, so an edit, a staged file changed again, or the first commit is stale', () => {
    const dir = mkdtempSync(join(tmpdir(), 'handoff-fp-unborn-'));
    git(dir, 'init', '-q');
    git(dir, 'config', 'user.email', 't@example.invalid');
    git(dir, 'config', 'user.name', 't');
    writeFileSync(join(dir, 'a.txt'), 'one\n');
    git(dir, 'add', 'a.txt');
    const fp = computeFingerprint(dir);
    expect(fp).not.toBeNull();
    // The base is the empty tree (sha1 object format here), the diff's other side.
    expect(fp?.gitHead).toBe('4b825dc642cb6eb9a060e54bf8d69288fbee4904');
    const receipt = { cwd: dir, git_head: fp?.gitHead ?? null, tree_fingerprint: fp?.treeFingerprint ?? null };
    expect(isStale(receipt)).toBe(false);
    // Staged, then changed again and staged again: the status line stays "A  a.txt"; only the content tells.
    writeFileSync(join(dir, 'a.txt'), 'two\n');
    git(dir, 'add', 'a.txt');
    expect(isStale(receipt)).toBe(true);
    writeFileSync(join(dir, 'a.txt'), 'one\n');
    git(dir, 'add', 'a.txt');
    expect(isStale(receipt)).toBe(false);
    // An untracked file's content counts too.
    writeFileSync(join(dir, 'b.txt'), 'x');
    const withB = computeFingerprint(dir);
    writeFileSync(join(dir, 'b.txt'), 'y');
    expect(computeFingerprint(dir)?.treeFingerprint).not.toBe(withB?.treeFingerprint);
    rmSync(join(dir, 'b.txt'));
    expect(isStale(receipt)).toBe(false);
    git(dir, 'commit', '-q', '-m', 'first');
    expect(isStale(receipt)).toBe(true);
  });

  it('staleness: a changed tree, a new commit on a clean tree, or a vanished cwd', () => {
    const dir = repo();
    const fp = computeFingerprint(dir);
    const receipt = { cwd: dir, git_head: fp?.gitHead ?? null, tree_fingerprint: fp?.treeFingerprint ?? null };
    expect(isStale(receipt)).toBe(false);
    writeFileSync(join(dir, 'README'), 'changed\n');
    expect(isStale(receipt)).toBe(true);
    git(dir, 'commit', '-q', '-am', 'change');
    // Clean again, so status and diff equal the original ones: only HEAD tells the trees apart.
    expect(computeFingerprint(dir)?.treeFingerprint).toBe(fp?.treeFingerprint);
    expect(isStale(receipt)).toBe(true);
    expect(
      isStale({ cwd: join(dir, 'gone'), git_head: receipt.git_head, tree_fingerprint: receipt.tree_fingerprint }),
    ).toBe(true);
    expect(isStale({ cwd: '/nonexistent', git_head: null, tree_fingerprint: null })).toBe(false);
  });

  it('parses porcelain -z entries, skipping the source path of a rename', () => {
    const status = Buffer.from('R  new.ts\0old.ts\0?? b.txt\0 M src/a.ts\0?? a b.txt\0?? ??weird\0');
    expect(untrackedPaths(status)).toEqual(['??weird', 'a b.txt', 'b.txt']);
  });
});

describe('the store inside the work tree', () => {
  it('leaves the data root and the DB files out, so draft writes never make a receipt stale', () => {
    const dir = repo();
    const home = join(dir, '.handoff');
    mkdirSync(join(home, 'drafts'), { recursive: true });
    const env = { ...process.env, HANDOFF_HOME: home, HANDOFF_DB: join(dir, 'store.db') };
    const excluded = storeFiles(env);
    const base = computeFingerprint(dir, env, excluded);
    writeFileSync(join(home, 'drafts', 'x.json'), '{}');
    writeFileSync(join(dir, 'store.db'), 'db');
    writeFileSync(join(dir, 'store.db-wal'), 'wal');
    expect(computeFingerprint(dir, env, excluded)).toEqual(base);
    // Without the exclusion the same files count, and a real change still counts with it.
    expect(computeFingerprint(dir, env)?.treeFingerprint).not.toBe(base?.treeFingerprint);
    writeFileSync(join(dir, 'README'), 'edited\n');
    expect(computeFingerprint(dir, env, excluded)?.treeFingerprint).not.toBe(base?.treeFingerprint);
    expect(
      isStale({ cwd: dir, git_head: base?.gitHead ?? null, tree_fingerprint: base?.treeFingerprint ?? null }, env),
    ).toBe(true);
  });

  it('with nothing to exclude inside the tree, the plain formula is used', () => {
    const dir = repo();
    const env = { ...process.env, HANDOFF_HOME: mkdtempSync(join(tmpdir(), 'handoff-home-')) };
    expect(computeFingerprint(dir, env, storeFiles(env))).toEqual(computeFingerprint(dir, env));
  });
});
