// npm run bench: start-up cost of each verb as a ratio to bare `node -e 0` of the same Node, measured in the same
// run with alternating runs (so machine noise hits both sides alike). A benchmark, never a timed test.
// The headline is measured as users have it: every timed process, `node -e 0` included, runs with
// NODE_EXTRA_CA_CERTS and NODE_OPTIONS unset (this machine sets the first, and on Node 20 it alone added about 33 ms to
// every process, which flattered every ratio); the same table in the machine's own environment follows.
// `npm run bench -- --node 26` runs it all under another supported major, from the cache scripts/nodes.mjs keeps
// outside the repository (better-sqlite3 switched to that major's build, and back at the end).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { countFigures, dispatchedVerbs, mcpFigures } from './bench-dispatched.mjs';
import { approvalGateVerb } from './bench-approvals.mjs';
import { currentNodeDir, ensureNode, nodeEnv, useSqliteFor, warmCaches } from './nodes.mjs';

const argv = process.argv.slice(2);
const nodeAt = argv.indexOf('--node');
if (nodeAt !== -1 && argv[nodeAt + 1] !== process.versions.node.split('.')[0]) {
  const dir = ensureNode(argv[nodeAt + 1]);
  const own = currentNodeDir();
  let status;
  try {
    useSqliteFor(own); // cached first, so switching back is a copy
    useSqliteFor(dir);
    warmCaches(nodeEnv(dir));
    const rest = argv.filter((_, i) => i !== nodeAt && i !== nodeAt + 1);
    status = spawnSync(join(dir, 'bin', 'node'), [import.meta.filename, ...rest], {
      stdio: 'inherit',
      env: nodeEnv(dir),
    }).status;
  } finally {
    useSqliteFor(own);
  }
  process.exit(status ?? 1);
}

const REPO = resolve(import.meta.dirname, '..');
const BIN = join(REPO, 'bin', 'run.js');
const RUNS = Number(process.env.BENCH_RUNS ?? 21);
const home = mkdtempSync(join(tmpdir(), 'handoff-bench-'));
// The drafts are born in workspace `bench`, so finalize needs no --workspace.
const env = { ...process.env, HANDOFF_HOME: home, HANDOFF_WORKSPACE: 'bench', NO_COLOR: '1' };
delete env.HANDOFF_DB;
/** `e` as most users have it: without NODE_EXTRA_CA_CERTS and NODE_OPTIONS. */
const clean = (e) => {
  const c = { ...e };
  delete c.NODE_EXTRA_CA_CERTS;
  delete c.NODE_OPTIONS;
  return c;
};
/** The two environments every verb and its `node -e 0` are timed in: the headline first. */
const ENVS = [
  { name: 'clean: NODE_EXTRA_CA_CERTS and NODE_OPTIONS unset', of: clean },
  {
    name: `this machine's environment (NODE_EXTRA_CA_CERTS ${process.env.NODE_EXTRA_CA_CERTS ? 'set' : 'unset'}, NODE_OPTIONS ${process.env.NODE_OPTIONS ? JSON.stringify(process.env.NODE_OPTIONS) : 'unset'})`,
    of: (e) => e,
  },
];

const hasVerb = (topic, verb) => existsSync(join(REPO, 'dist', 'commands', topic, `${verb}.js`));
const handoff = (args, envOf = env) =>
  spawnSync(process.execPath, [BIN, ...args], { env: envOf, encoding: 'utf8', cwd: envOf.HANDOFF_HOME });
// BENCH_CPU=1 also takes each process's CPU time (user + system, `perf stat`'s task-clock, which counts the child
// alone): on a machine shared with other work, wall time grows with everybody's load, CPU time much less.
const CPU_FILE = process.env.BENCH_CPU ? join(home, 'task-clock.csv') : undefined;
const time = (argv, envOf = env, input = undefined) => {
  const [cmd, args] = CPU_FILE
    ? ['perf', ['stat', '-x,', '-e', 'task-clock', '-o', CPU_FILE, process.execPath, ...argv]]
    : [process.execPath, argv];
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { env: envOf, encoding: 'utf8', cwd: envOf.HANDOFF_HOME, input });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const cpu = CPU_FILE ? Number(/^([\d.]+),msec,task-clock/m.exec(readFileSync(CPU_FILE, 'utf8'))?.[1]) : NaN;
  return { ms, r, cpu };
};
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

// `npm run bench` builds first. The writes (init, set, add, fill) fsync their draft, and on a journaling file system
// an fsync right after the build can wait for the build's own megabytes to reach the disk: the first verbs measured
// would carry the build's writeback. So the build's writes are flushed before anything is timed.
spawnSync('sync');

const validEnvelope = (agentId) => ({
  agent_status: { agent_state: 'IN_PROGRESS', agent_id: agentId, pending_steps: [], next_action: 'pending' },
  evidence_report: {
    patterns_checked: [],
    files_checked: [],
    commands_run: [],
    key_outputs: [],
    verbatim_outputs: [],
    cross_layer_impacts: [],
    open_gaps: [],
  },
});
const file = join(home, 'envelope.json');
writeFileSync(file, JSON.stringify(validEnvelope('a0123456789abcdef')));

/** Every data root the bench made (removed at the end unless BENCH_KEEP is set). */
const homes = [home];
/** The verbs measured: a name and the arguments of run `i` (and the data root, when not `home`). */
const verbs = [{ name: 'contract validate --file', args: () => ['contract', 'validate', '--file', file] }];
if (hasVerb('contract', 'init')) {
  const init = JSON.parse(handoff(['contract', 'init', '--json']).stdout);
  const d = ['--draft-id', init.draft_id];
  verbs.push(
    { name: 'contract init', args: () => ['contract', 'init', '--json'] },
    { name: 'contract set', args: (i) => ['contract', 'set', 'agent_status.next_action', `step ${i}`, ...d] },
    { name: 'contract add', args: (i) => ['contract', 'add', 'evidence_report.commands_run', `cmd ${i}`, ...d] },
    {
      name: 'contract fill',
      args: (i) => ['contract', 'fill', '--json', JSON.stringify({ report_prose: `p${i}` }), ...d],
    },
    { name: 'contract view', args: () => ['contract', 'view', ...d] },
    { name: 'contract validate --draft-id', args: () => ['contract', 'validate', ...d] },
  );
}
if (hasVerb('contract', 'finalize')) {
  // A fresh closed draft per run, so every run does the real write (not the idempotent no-op), in a data root of its
  // own: the store finalize creates would make the writes above open it too.
  const storeHome = mkdtempSync(join(tmpdir(), 'handoff-bench-store-'));
  homes.push(storeHome);
  const storeEnv = { ...env, HANDOFF_HOME: storeHome };
  const ids = [];
  // Two more for the deterministic counts (BENCH_COUNTS).
  for (let i = 0; i < RUNS + 2; i++) {
    const id = JSON.parse(handoff(['contract', 'init', '--json'], storeEnv).stdout).draft_id;
    handoff(
      ['contract', 'fill', '--draft-id', id, '--json', JSON.stringify({ agent_status: { agent_state: 'BLOCKED' } })],
      storeEnv,
    );
    ids.push(id);
  }
  verbs.push({ name: 'contract finalize', args: (i) => ['contract', 'finalize', '--draft-id', ids[i]], env: storeEnv });
}

// A dispatched turn always has a store: its writes mirror onto the open row, its stop runs the gate (a hook call with
// the hook's JSON on stdin), and it closes with finalize on its dispatched row (scripts/bench-dispatched.mjs).
let dispatched;
if (hasVerb('contract', 'dispatch') && hasVerb('contract', 'gate')) {
  dispatched = dispatchedVerbs({ BIN, env, RUNS, homes });
  verbs.push(...dispatched.verbs);
}

if (hasVerb('approval', 'gate')) verbs.push(approvalGateVerb({ BIN, env, homes }));

// Round by round: each round runs every verb once, each right after a `node -e 0` of its own, in each environment. A
// disturbance of a few seconds (this kind of machine has them) then lands on a few runs of every verb, not on most
// runs of one.
const samples = ENVS.map(() => verbs.map(() => ({ base: [], verb: [], baseCpu: [], verbCpu: [] })));
for (let i = 0; i < RUNS; i++) {
  verbs.forEach((v, k) => {
    ENVS.forEach((e, j) => {
      const base = time(['-e', '0'], e.of(env));
      samples[j][k].base.push(base.ms);
      samples[j][k].baseCpu.push(base.cpu);
      const { ms, r, cpu } = time([BIN, ...v.args(i)], e.of(v.env ?? env), v.input?.(i));
      samples[j][k].verbCpu.push(cpu);
      if (r.status !== (v.exit ?? 0)) {
        console.error(`bench: ${v.name} exited ${r.status}: ${r.stderr.trim().split('\n')[0]}`);
        process.exitCode = 1;
      }
      samples[j][k].verb.push(ms);
    });
  });
}

console.log(
  `Node ${process.versions.node}: node -e 0 vs handoff, median of ${RUNS} alternating runs each, in ${RUNS} rounds (HANDOFF_HOME=${home})`,
);
ENVS.forEach((e, j) => {
  const rows = verbs.map((v, k) => ({
    name: v.name,
    base: median(samples[j][k].base),
    verb: median(samples[j][k].verb),
  }));
  // Every `node -e 0` of the environment, pooled: the rows' own medians of 21 moved by more than 10 % between rows of
  // one run here (75 to 88 ms), which moved their ratios as much; the pooled median is the steadier denominator.
  const pooled = median(samples[j].flatMap((x) => x.base));
  console.log(`\n${e.name}`);
  console.log(
    `${'verb'.padEnd(32)} ${'node -e 0'.padStart(10)} ${'verb'.padStart(10)} ${'ratio'.padStart(7)} ${'to run'.padStart(7)}`,
  );
  for (const r of rows) {
    console.log(
      `${r.name.padEnd(32)} ${r.base.toFixed(1).padStart(8)}ms ${r.verb.toFixed(1).padStart(8)}ms ${(r.verb / r.base).toFixed(2).padStart(7)} ${(r.verb / pooled).toFixed(2).padStart(7)}`,
    );
  }
  console.log(
    `ratio: to the row's own node -e 0 runs; to run: to the median of all ${verbs.length * RUNS} node -e 0 runs in this environment (${pooled.toFixed(1)} ms)`,
  );
  if (CPU_FILE === undefined) return;
  const pooledCpu = median(samples[j].flatMap((x) => x.baseCpu));
  console.log(`CPU time (user + system, task-clock), the same runs:`);
  verbs.forEach((v, k) => {
    const base = median(samples[j][k].baseCpu);
    const verb = median(samples[j][k].verbCpu);
    console.log(
      `${v.name.padEnd(32)} ${base.toFixed(1).padStart(8)}ms ${verb.toFixed(1).padStart(8)}ms ${(verb / base).toFixed(2).padStart(7)} ${(verb / pooledCpu).toFixed(2).padStart(7)}`,
    );
  });
  console.log(`to run: to the median CPU time of all node -e 0 runs in this environment (${pooledCpu.toFixed(1)} ms)`);
});

if (dispatched !== undefined) {
  const calls = Number(process.env.BENCH_MCP_CALLS ?? 1000);
  const mcp = await mcpFigures({ BIN, env: clean(dispatched.env), draftId: dispatched.writer, calls });
  console.log(
    `\nMCP on a live server (dispatched turn, store present, clean environment), ${calls} calls of each tool, one after another:`,
  );
  for (const [name, f] of [
    ['contract_set', mcp.set],
    ['contract_add', mcp.add],
  ]) {
    console.log(
      `  ${name.padEnd(14)} median ${f.median.toFixed(2).padStart(7)} ms   p95 ${f.p95.toFixed(2).padStart(7)} ms`,
    );
  }
}

// Wall time on a shared machine is noisy; instructions (callgrind) and page faults barely move with load. One run
// each, as ratios to `node -e 0`; slow (valgrind), so only when asked.
if (process.env.BENCH_COUNTS) {
  const base = countFigures(() => ['-e', '0'], clean(env));
  console.log(
    `\ndeterministic figures, one run each (node -e 0: ${(base.instructions / 1e6).toFixed(1)} M instructions, ${base.faults} page faults)`,
  );
  console.log(
    `${'verb'.padEnd(32)} ${'M instr'.padStart(9)} ${'ratio'.padStart(7)} ${'faults'.padStart(8)} ${'ratio'.padStart(7)}`,
  );
  // BENCH_COUNTS=1 counts every verb; any other value counts the verbs whose name contains it.
  for (const v of verbs.filter((x) => process.env.BENCH_COUNTS === '1' || x.name.includes(process.env.BENCH_COUNTS))) {
    const c = countFigures(
      (k) => [BIN, ...v.args(RUNS + k)],
      clean(v.env ?? env),
      (k) => v.input?.(RUNS + k),
    );
    const p = (x, b) => (x / b).toFixed(2).padStart(7);
    console.log(
      `${v.name.padEnd(32)} ${(c.instructions / 1e6).toFixed(1).padStart(9)} ${p(c.instructions, base.instructions)} ${String(c.faults).padStart(8)} ${p(c.faults, base.faults)}`,
    );
  }
}

const extra = process.env.BENCH_QUICK ? null : await import('./bench-extra.mjs').catch(() => null);
if (extra) await extra.run({ REPO, BIN, env: clean(env), home, median, RUNS });
if (!process.env.BENCH_KEEP) for (const h of homes) rmSync(h, { recursive: true, force: true });
