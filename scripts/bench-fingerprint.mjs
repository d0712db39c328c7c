// Median time of the receipt tree fingerprint on a 10,000-file git repository.
//
//   npm run build && node scripts/bench-fingerprint.mjs [--files N] [--runs N]
//
// Other benches can reuse it: `import { fingerprintBench } from './bench-fingerprint.mjs'` (nothing runs on import),
// or call benchFingerprint(cwd, runs) from dist/receipts/fingerprint.js on a repository of their own.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const env = {
  ...process.env,
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'b@b',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'b@b',
};
const git = (cwd, ...args) => execFileSync('git', args, { cwd, env, stdio: 'ignore' });

function populate(dir, files) {
  for (let i = 0; i < files; i++) {
    const sub = join(dir, `d${Math.floor(i / 100)}`);
    if (i % 100 === 0) mkdirSync(sub);
    writeFileSync(join(sub, `f${i}.ts`), `export const v${i} = ${i};\n`);
  }
}

/**
 * Builds two temp repositories of `files` files and returns the median fingerprint times (ms):
 * `dirty`: all files committed, 20 edited and 20 untracked; `untracked`: every file untracked (each one hashed).
 */
export async function fingerprintBench({ files = 10_000, runs = 5 } = {}) {
  const { benchFingerprint } = await import(new URL('../dist/receipts/fingerprint.js', import.meta.url).href);
  const tracked = mkdtempSync(join(tmpdir(), 'handoff-bench-fp-'));
  const untracked = mkdtempSync(join(tmpdir(), 'handoff-bench-fp-'));
  try {
    git(tracked, 'init', '-q');
    populate(tracked, files);
    git(tracked, 'add', '-A');
    git(tracked, 'commit', '-q', '-m', 'bench');
    for (let i = 0; i < 20; i++) writeFileSync(join(tracked, 'd0', `f${i}.ts`), `export const v${i} = ${-i};\n`);
    for (let i = 0; i < 20; i++) writeFileSync(join(tracked, `new${i}.ts`), `new ${i}\n`);
    const dirty = benchFingerprint(tracked, runs);
    git(untracked, 'init', '-q');
    writeFileSync(join(untracked, '.keep'), '');
    git(untracked, 'add', '.keep');
    git(untracked, 'commit', '-q', '-m', 'empty');
    populate(untracked, files);
    const all = benchFingerprint(untracked, runs);
    return { files, runs, dirtyMedianMs: dirty.medianMs, untrackedMedianMs: all.medianMs };
  } finally {
    rmSync(tracked, { recursive: true, force: true, maxRetries: 3 });
    rmSync(untracked, { recursive: true, force: true, maxRetries: 3 });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: { files: { type: 'string', default: '10000' }, runs: { type: 'string', default: '5' } },
  });
  const r = await fingerprintBench({ files: Number(values.files), runs: Number(values.runs) });
  console.log(
    `fingerprint, ${r.files} tracked files (20 edited, 20 untracked): median ${r.dirtyMedianMs.toFixed(1)} ms over ${r.runs} runs`,
  );
  console.log(
    `fingerprint, ${r.files} untracked files (each one hashed):       median ${r.untrackedMedianMs.toFixed(1)} ms over ${r.runs} runs`,
  );
}
