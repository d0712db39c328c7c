/**
 * Workspaces are safe slugs. An explicit workspace (--workspace, $HANDOFF_WORKSPACE) is used
 * exactly as given or refused (UNSAFE_SLUG, exit 2); the default derived from a folder name is made into one.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isSafeSlug } from '../src/evidence/slug.js';
import { gitTopLevel, normalizeWorkspace, resolveWorkspace } from '../src/paths.js';
import { caught } from './helpers/store.js';

describe('normalizeWorkspace (the derived default)', () => {
  it.each([
    ['My Project', 'My-Project'],
    ['café', 'caf-'],
    ['cafe\u0301', 'caf-'],
    ['a  \t b', 'a-b'],
    ['..hidden', 'hidden'],
    ['-x', 'x'],
    ['_x', 'x'],
    ['a..b', 'a.b'],
    ['a....b', 'a.b'],
    ['a.-.b', 'a.-.b'],
    ['proj.', 'proj.'],
    ['payments-api', 'payments-api'],
    ['', 'default'],
    ['.', 'default'],
    ['..', 'default'],
    ['日本語', 'default'],
    ['x'.repeat(70), 'x'.repeat(64)],
    [`${'a'.repeat(63)}..b`, `${'a'.repeat(63)}.`],
  ])('%j -> %j', (name, slug) => {
    expect(normalizeWorkspace(name)).toBe(slug);
    expect(isSafeSlug(normalizeWorkspace(name))).toBe(true);
  });

  it('NFC and NFD spellings of a name give the same workspace', () => {
    expect(normalizeWorkspace('Café Déjà'.normalize('NFD'))).toBe(normalizeWorkspace('Café Déjà'.normalize('NFC')));
  });

  it('always yields a safe slug', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 100 }), (name) => isSafeSlug(normalizeWorkspace(name))),
    );
  });
});

describe('resolveWorkspace', () => {
  const dir = (name: string): string => {
    const d = join(mkdtempSync(join(tmpdir(), 'ws-')), name);
    mkdirSync(d);
    return d;
  };

  it('an explicit value is used as given when it is a safe slug', () => {
    expect(resolveWorkspace('billing-api', {}, '/tmp')).toBe('billing-api');
    expect(resolveWorkspace(undefined, { HANDOFF_WORKSPACE: 'env.ws' }, '/tmp')).toBe('env.ws');
  });

  it.each(['My Project', '../x', 'a/b', '', ' ws', 'café', 'x'.repeat(65)])(
    '--workspace %j: UNSAFE_SLUG, exit 2, never normalized',
    (value) => {
      expect(caught(() => resolveWorkspace(value, {}, '/tmp'))).toMatchObject({
        code: 'UNSAFE_SLUG',
        exit: 2,
        message: expect.stringContaining('--workspace'),
      });
    },
  );

  it('an unsafe $HANDOFF_WORKSPACE is UNSAFE_SLUG naming the variable; an empty one is unset', () => {
    expect(caught(() => resolveWorkspace(undefined, { HANDOFF_WORKSPACE: 'a b' }, '/tmp'))).toMatchObject({
      code: 'UNSAFE_SLUG',
      message: expect.stringContaining('HANDOFF_WORKSPACE'),
    });
    expect(resolveWorkspace(undefined, { HANDOFF_WORKSPACE: '' }, dir('plain'))).toBe('plain');
  });

  it('the derived default is normalized: the folder name, or the git top-level name', () => {
    expect(resolveWorkspace(undefined, {}, dir('My Project'))).toBe('My-Project');
    const top = dir('Über Repo');
    mkdirSync(join(top, '.git'));
    writeFileSync(join(top, '.git', 'HEAD'), 'ref: refs/heads/main\n'); // a repository, as git judges one
    mkdirSync(join(top, 'src'));
    expect(resolveWorkspace(undefined, {}, join(top, 'src'))).toBe('ber-Repo');
    expect(resolveWorkspace(undefined, {}, '/')).toBe('default');
  });

  it('an empty .git folder is no repository (a sandbox mount point): the walk goes on past it', () => {
    // Codex's workspace-write sandbox leaves an empty .git (and .codex, .agents) in each writable root, /tmp included.
    const outer = dir('outer');
    mkdirSync(join(outer, '.git'));
    const inner = join(outer, 'inner');
    mkdirSync(join(inner, '.git'), { recursive: true });
    mkdirSync(join(inner, 'src'));
    expect(gitTopLevel(join(inner, 'src'))).toBeUndefined();
    expect(resolveWorkspace(undefined, {}, join(inner, 'src'))).toBe('src');
    writeFileSync(join(outer, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    expect(gitTopLevel(join(inner, 'src'))).toBe(outer);
    rmSync(join(inner, '.git'), { recursive: true });
    writeFileSync(join(inner, '.git'), 'gitdir: ../elsewhere\n'); // a worktree's or submodule's link
    expect(gitTopLevel(join(inner, 'src'))).toBe(inner);
  });
});
