// `npm test`'s first half: the build, the type check and the three linters, run side by side (the type check and
// ESLint as one step, scripts/typecheck-lint.mjs). None of them reads what another writes (the type check and the
// linters read the sources; the build writes dist/), and on a 2-core machine they took 68 s one after another, mostly
// one core busy at a time. Each one's output is printed whole when it ends, in the order they end, so nothing
// interleaves; any failure fails the whole (exit 1), after all have ended. prettier and knip keep caches in
// node_modules/.cache/ (docs/architecture.md, "Tests"); the build, the type check and ESLint start afresh each time.
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { resolve } from 'node:path';

const REPO = resolve(import.meta.dirname, '..');
const npm = process.env.npm_execpath;
/** Each step: a name, and its npm script (`npm run <script>`) or a command. */
const STEPS = [
  ['build', ['run', '-s', 'build']],
  // `npm run typecheck` and ESLint over the same four folders, sharing one TypeScript program (the script says why).
  ['typecheck and eslint', ['exec', '--', 'node', 'scripts/typecheck-lint.mjs']],
  ['prettier', ['exec', '--', 'prettier', '--check', '--cache', '--cache-strategy', 'content', '.']],
  ['knip', ['exec', '--', 'knip', '--no-progress', '--cache']],
];

/** Runs `npm <args>` (through the npm that runs this script, else the one on PATH); resolves with its outcome. */
function step(name, args) {
  const started = performance.now();
  const [cmd, argv] = npm ? [process.execPath, [npm, ...args]] : ['npm', args];
  return new Promise((done) => {
    const child = spawn(cmd, argv, { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [];
    child.stdout.on('data', (c) => out.push(c));
    child.stderr.on('data', (c) => out.push(c));
    child.on('error', (e) => out.push(Buffer.from(`${e.message}\n`)));
    child.on('close', (code, signal) => {
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      const text = Buffer.concat(out).toString('utf8');
      const ok = code === 0;
      process.stdout.write(`${ok ? 'ok  ' : 'FAIL'} ${name} (${seconds} s)${ok ? '' : `, exit ${code ?? signal}`}\n`);
      if (!ok || process.env.CHECK_VERBOSE)
        process.stdout.write(text.endsWith('\n') || text === '' ? text : `${text}\n`);
      done(ok);
    });
  });
}

const results = await Promise.all(STEPS.map(([name, args]) => step(name, args)));
if (results.includes(false)) process.exit(1);
