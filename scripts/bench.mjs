// npm run bench: start-up cost of each verb as a ratio to bare `node -e 0`, measured in the same run with
// alternating runs (so machine noise hits both sides alike). A benchmark, never a timed test.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const REPO = resolve(import.meta.dirname, '..');
const BIN = join(REPO, 'bin', 'run.js');
const RUNS = Number(process.env.BENCH_RUNS ?? 21);
const home = mkdtempSync(join(tmpdir(), 'handoff-bench-'));
// The drafts are born in workspace `bench` (amendments-2.md §E2), so finalize needs no --workspace.
const env = { ...process.env, HANDOFF_HOME: home, HANDOFF_WORKSPACE: 'bench', NO_COLOR: '1' };
delete env.HANDOFF_DB;

const hasVerb = (topic, verb) => existsSync(join(REPO, 'dist', 'commands', topic, `${verb}.js`));
const handoff = (args, input) => spawnSync(process.execPath, [BIN, ...args], { env, input, encoding: 'utf8', cwd: home });
const time = (argv, input) => {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, argv, { env, input, encoding: 'utf8', cwd: home });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  return { ms, r };
};
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

/** Alternates `node -e 0` with the verb; returns both medians. `args` may be a function of the run index. */
function measure(name, args, { input, expectExit = 0 } = {}) {
  const base = [];
  const verb = [];
  for (let i = 0; i < RUNS; i++) {
    base.push(time(['-e', '0']).ms);
    const a = typeof args === 'function' ? args(i) : args;
    const { ms, r } = time([BIN, ...a], typeof input === 'function' ? input(i) : input);
    if (r.status !== expectExit) {
      console.error(`bench: ${name} exited ${r.status}: ${r.stderr.trim().split('\n')[0]}`);
      process.exitCode = 1;
    }
    verb.push(ms);
  }
  return { name, base: median(base), verb: median(verb) };
}

// `npm run bench` builds first. The writes (init, set, add, fill) fsync their draft, and on a journaling file system
// an fsync right after the build can wait for the build's own megabytes to reach the disk: the first verbs measured
// would carry the build's writeback. So the build's writes are flushed before anything is timed.
spawnSync('sync');

const rows = [];
const validEnvelope = (agentId) => ({
  agent_status: { agent_state: 'IN_PROGRESS', agent_id: agentId, pending_steps: [], next_action: 'pending' },
  evidence_report: { patterns_checked: [], files_checked: [], commands_run: [], key_outputs: [], verbatim_outputs: [], cross_layer_impacts: [], open_gaps: [] },
});
const file = join(home, 'envelope.json');
writeFileSync(file, JSON.stringify(validEnvelope('a0123456789abcdef')));

rows.push(measure('contract validate --file', ['contract', 'validate', '--file', file]));

if (hasVerb('contract', 'init')) {
  rows.push(measure('contract init', ['contract', 'init', '--json']));
  const init = JSON.parse(handoff(['contract', 'init', '--json']).stdout);
  const d = ['--draft-id', init.draft_id];
  rows.push(measure('contract set', (i) => ['contract', 'set', 'agent_status.next_action', `step ${i}`, ...d]));
  rows.push(measure('contract add', (i) => ['contract', 'add', 'evidence_report.commands_run', `cmd ${i}`, ...d]));
  rows.push(measure('contract fill', (i) => ['contract', 'fill', '--json', JSON.stringify({ report_prose: `p${i}` }), ...d]));
  rows.push(measure('contract view', ['contract', 'view', ...d]));
  rows.push(measure('contract validate --draft-id', ['contract', 'validate', ...d]));
}

if (hasVerb('contract', 'finalize')) {
  // A fresh closed draft per run, so every run does the real write (not the idempotent no-op).
  const ids = [];
  for (let i = 0; i < RUNS; i++) {
    const id = JSON.parse(handoff(['contract', 'init', '--json']).stdout).draft_id;
    handoff(['contract', 'fill', '--draft-id', id, '--json', JSON.stringify({ agent_status: { agent_state: 'BLOCKED' } })]);
    ids.push(id);
  }
  rows.push(measure('contract finalize', (i) => ['contract', 'finalize', '--draft-id', ids[i]]));
}

console.log(`node -e 0 vs handoff, median of ${RUNS} alternating runs each (HANDOFF_HOME=${home})`);
console.log(`${'verb'.padEnd(32)} ${'node -e 0'.padStart(10)} ${'verb'.padStart(10)} ${'ratio'.padStart(7)}`);
for (const r of rows) {
  console.log(`${r.name.padEnd(32)} ${r.base.toFixed(1).padStart(8)}ms ${r.verb.toFixed(1).padStart(8)}ms ${(r.verb / r.base).toFixed(2).padStart(7)}`);
}

const extra = await import('./bench-extra.mjs').catch(() => null);
if (extra) await extra.run({ REPO, BIN, env, home, median, RUNS });
if (!process.env.BENCH_KEEP) rmSync(home, { recursive: true, force: true });
