// What the test-change check adds to `contract finalize` on a 10,000-file git repository: the
// median wall time of the whole CLI finalize of a COMPLETE close dispatched with --workdir on the repository (the
// check hashes its test files again and diffs them against the base), against the same finalize of a contract whose
// base was taken outside git (no check), alternating. Budget: at most 250 ms more.
//
//   npm run build && node scripts/bench-test-changes.mjs [--files N] [--runs N]
//
// Part of npm run bench through scripts/bench-extra.mjs (`import { testChangesBench }`; nothing runs on import).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const REPO = resolve(import.meta.dirname, '..');
const BIN = join(REPO, 'bin', 'run.js');
const gitEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'b@b',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'b@b',
};
const git = (cwd, ...args) => execFileSync('git', args, { cwd, env: gitEnv, stdio: 'ignore' });
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

/** `files` files: one in five a test (half `*.test.ts` beside the code, half under test/), a package.json; committed. */
function populate(dir, files) {
  mkdirSync(join(dir, 'test'));
  writeFileSync(join(dir, 'package.json'), '{"name":"bench","scripts":{"test":"vitest run"}}\n');
  for (let i = 0; i < files - 1; i++) {
    const sub = join(dir, `d${Math.floor(i / 100)}`);
    if (i % 100 === 0) mkdirSync(sub);
    if (i % 10 === 0) writeFileSync(join(sub, `f${i}.test.ts`), `it('v${i}', () => expect(${i}).toBe(${i}));\n`);
    else if (i % 10 === 5) writeFileSync(join(dir, 'test', `t${i}.ts`), `it('t${i}', () => {});\n`);
    else writeFileSync(join(sub, `f${i}.ts`), `export const v${i} = ${i};\n`);
  }
  git(dir, 'init', '-q');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'bench');
}

const COMPLETE = (declare) =>
  JSON.stringify({
    agent_status: { agent_state: 'COMPLETE', pending_steps: [], next_action: 'done' },
    evidence_report: {
      verification: {
        type: 'command',
        command: 'npm test',
        result: 'pass',
        ...(declare ? { test_changes: [{ path: 'd0/f10.test.ts', reason: 'bench' }] } : {}),
      },
    },
  });

/**
 * Median finalize wall times (ms) with and without the check, `runs` contracts of each, alternating; `files` files in
 * the repository. Each run edits one test file of the repository (declared), so the check has a change to report.
 */
export async function testChangesBench({ files = 10_000, runs = 11 } = {}) {
  const repo = mkdtempSync(join(tmpdir(), 'handoff-bench-tc-repo-'));
  const plain = mkdtempSync(join(tmpdir(), 'handoff-bench-tc-plain-'));
  const home = mkdtempSync(join(tmpdir(), 'handoff-bench-tc-home-'));
  const env = { ...process.env, HANDOFF_HOME: home, HANDOFF_WORKSPACE: 'bench', NO_COLOR: '1' };
  const handoff = (args) => {
    const r = spawnSync(process.execPath, [BIN, ...args], { env, encoding: 'utf8', cwd: home });
    if (r.status !== 0) throw new Error(`handoff ${args.slice(0, 2).join(' ')} exited ${r.status}: ${r.stderr}`);
    return r;
  };
  const ready = (workdir, declare) => {
    const id = JSON.parse(
      handoff(['contract', 'dispatch', '--goal', 'bench', '--workdir', workdir, '--json']).stdout,
    ).contract_id;
    handoff(['contract', 'fill', '--draft-id', id, '--json', COMPLETE(declare)]);
    return id;
  };
  // Wall time, and the CPU time (user + system) of the process and the git it waits for, from bash's `time`: on a
  // shared machine the wall time moves with the load, the CPU time much less.
  const finalize = (id) => {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(
      'bash',
      [
        '-c',
        'TIMEFORMAT="%3U %3S"; time "$0" "$@" >/dev/null 2>/dev/null',
        process.execPath,
        BIN,
        'contract',
        'finalize',
        '--draft-id',
        id,
        '--json',
      ],
      { env, encoding: 'utf8', cwd: home },
    );
    const wall = Number(process.hrtime.bigint() - t0) / 1e6;
    const [user, sys] = r.stderr.trim().split('\n').pop().split(' ').map(Number);
    if (r.status !== 0 || !Number.isFinite(user + sys)) throw new Error(`finalize exited ${r.status}: ${r.stderr}`);
    return { wall, cpu: (user + sys) * 1000 };
  };
  try {
    populate(repo, files);
    const testFiles = Number(
      JSON.parse(handoff(['contract', 'dispatch', '--goal', 'probe', '--workdir', repo, '--json']).stdout).test_base
        .test_files,
    );
    const withCheck = [];
    const without = [];
    for (let i = 0; i < runs; i++) {
      const a = ready(repo, true);
      const b = ready(plain, false);
      writeFileSync(join(repo, 'd0', 'f10.test.ts'), `it('v10', () => expect(${i}).toBe(${i}));\n`);
      if (i % 2 === 0) {
        withCheck.push(finalize(a));
        without.push(finalize(b));
      } else {
        without.push(finalize(b));
        withCheck.push(finalize(a));
      }
    }
    const m = (xs, k) => median(xs.map((x) => x[k]));
    return {
      files,
      testFiles,
      runs,
      withMs: m(withCheck, 'wall'),
      withoutMs: m(without, 'wall'),
      withCpuMs: m(withCheck, 'cpu'),
      withoutCpuMs: m(without, 'cpu'),
    };
  } finally {
    for (const d of [repo, plain, home]) rmSync(d, { recursive: true, force: true, maxRetries: 3 });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: { files: { type: 'string', default: '10000' }, runs: { type: 'string', default: '11' } },
  });
  const r = await testChangesBench({ files: Number(values.files), runs: Number(values.runs) });
  for (const line of testChangesLines(r)) console.log(line);
}

/** The bench's lines, as bench-extra.mjs prints them too. */
export function testChangesLines(r) {
  const row = (what, a, b) =>
    `  ${what.padEnd(28)} with ${a.toFixed(1).padStart(7)} ms  without ${b.toFixed(1).padStart(7)} ms  added ${(a - b).toFixed(1).padStart(7)} ms`;
  return [
    `finalize with the test check, ${r.files.toLocaleString('en')}-file git repository (${r.testFiles} test entries), median of ${r.runs} alternating runs (budget: +250 ms):`,
    row('wall time', r.withMs, r.withoutMs),
    row('CPU time (with git)', r.withCpuMs, r.withoutCpuMs),
  ];
}
