// `npm run test:node -- 26 [vitest options]`: the process-level tests (vitest's `process` project: the files that
// start bin/run.js as a process, vitest.config.ts PROCESS: start-up and the range check, the stop gate as a hook and
// its watchdog, signals, locks across processes, hooks, the MCP server, the README) and the demo, under another
// supported Node major, taken from the cache outside the repository (scripts/nodes.mjs; fetched from the registry the
// first time). better-sqlite3 is switched to that major's build (cached by ABI) and back to the build of the Node
// that runs this script at the end, whatever happened; dist/ is shared (the JavaScript is the same on every major,
// and each major keeps its own code cache beside it, bin/run.js cacheKey). Each part's time is printed; any failure
// exits 1.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { currentNodeDir, ensureNode, nodeEnv, useSqliteFor, warmCaches } from './nodes.mjs';

const REPO = resolve(import.meta.dirname, '..');
const [major, ...vitestArgs] = process.argv.slice(2);
if (!/^\d+$/.test(major ?? '')) {
  console.error('usage: npm run test:node -- MAJOR [vitest options]   (a supported major: 22, 24, 26)');
  process.exit(2);
}

const times = [];
/** Runs one part, printing its time; a throw or a failed command fails the whole run. */
function part(name, fn) {
  const started = performance.now();
  console.log(`== test:node ${major}: ${name}`);
  try {
    return fn();
  } finally {
    const s = ((performance.now() - started) / 1000).toFixed(1);
    times.push(`${name} ${s} s`);
    console.log(`== test:node ${major}: ${name}: ${s} s`);
  }
}

function sh(cmd, args, env, stdio = 'inherit') {
  const r = spawnSync(cmd, args, { cwd: REPO, env, stdio });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status ?? r.signal}`);
}

const log = (line) => console.log(line);
const home = currentNodeDir();
let failed = false;
try {
  const dir = part('Node', () => ensureNode(major));
  const env = nodeEnv(dir);
  const version = spawnSync(join(dir, 'bin', 'node'), ['-p', 'process.versions.node'], { encoding: 'utf8' });
  console.log(`Node ${version.stdout.trim()} in ${dir}`);
  part('better-sqlite3', () => {
    // The build in place, for the Node that runs this script, is cached first, so switching back costs a copy.
    useSqliteFor(home, log);
    const r = useSqliteFor(dir, log);
    console.log(`better-sqlite3 for ABI ${r.abi}: ${r.how}`);
  });
  part('code caches', () => {
    // A fresh checkout is built (by this major); else its bundles get this major's code caches beside the others.
    if (!existsSync(join(REPO, 'dist', 'cli', 'handoff.cjs'))) return sh('node', ['scripts/build.mjs'], env);
    warmCaches(env);
  });
  part('demo', () => sh('bash', ['scripts/demo.sh'], env));
  part('process-level tests', () =>
    sh('node', [join(REPO, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--project', 'process', ...vitestArgs], env),
  );
} catch (e) {
  failed = true;
  console.error(`test:node ${major}: ${e.message}`);
} finally {
  try {
    const r = useSqliteFor(home, log);
    console.log(`better-sqlite3 back to ABI ${r.abi} (${process.versions.node}): ${r.how}`);
  } catch (e) {
    failed = true;
    console.error(`test:node ${major}: better-sqlite3 could not be switched back: ${e.message}`);
  }
  console.log(`test:node ${major} ${failed ? 'FAILED' : 'passed'}: ${times.join(', ')}`);
}
process.exit(failed ? 1 : 0);
