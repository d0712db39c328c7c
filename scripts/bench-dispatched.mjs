// Part of npm run bench: the calls an agent makes inside a dispatched turn, where a store always exists. The draft-only
// figures above miss what a store costs (opening it, mirroring each write onto the open row, the stop gate, finalize
// on a dispatched row), so these are measured beside them, in the same alternating rounds.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { clearTimeout, setTimeout } from 'node:timers';
import { join } from 'node:path';

/**
 * The dispatched-turn verbs, each `{name, args(i), env, input?(i)}` for the bench's rounds, in a data root of their
 * own (`homes` gets it). Every run of the gate's block path asks about a dispatched contract of its own (the
 * rejection breaker counts per contract and would give up after two blocks); the allow path asks about a finalized
 * contract.
 */
export function dispatchedVerbs({ BIN, env, RUNS, homes }) {
  const home = mkdtempSync(join(tmpdir(), 'handoff-bench-dispatched-'));
  homes.push(home);
  const denv = { ...env, HANDOFF_HOME: home };
  const handoff = (args, input) => {
    const r = spawnSync(process.execPath, [BIN, ...args], { env: denv, encoding: 'utf8', cwd: home, input });
    if (r.status !== 0) throw new Error(`bench: ${args.slice(0, 2).join(' ')} exited ${r.status}: ${r.stderr}`);
    return r.stdout;
  };
  const dispatch = () => JSON.parse(handoff(['contract', 'dispatch', '--goal', 'bench turn', '--json'])).contract_id;
  const close = (id) =>
    handoff([
      'contract',
      'fill',
      '--draft-id',
      id,
      '--json',
      JSON.stringify({ agent_status: { agent_state: 'BLOCKED' } }),
    ]);

  const writer = dispatch();
  // The first write moves the row to IN_PROGRESS; the measured ones are the steady state of a turn.
  handoff(['contract', 'set', 'work_phase', 'executing', '--draft-id', writer]);
  const allowed = dispatch();
  close(allowed);
  handoff(['contract', 'finalize', '--draft-id', allowed]);
  const finals = [];
  const blocked = [];
  // Two more of each for the deterministic counts (BENCH_COUNTS) after the rounds.
  for (let i = 0; i < RUNS + 2; i++) {
    const id = dispatch();
    close(id);
    finals.push(id);
    blocked.push(dispatch());
  }
  const hook = (i) => JSON.stringify({ hook_event_name: 'Stop', session_id: `bench-${i}`, stop_reason: 'end_turn' });
  return {
    home,
    env: denv,
    writer,
    verbs: [
      {
        name: 'dispatched: contract set',
        args: (i) => ['contract', 'set', 'agent_status.next_action', `step ${i}`, '--draft-id', writer],
        env: denv,
      },
      {
        name: 'dispatched: contract add',
        args: (i) => ['contract', 'add', 'evidence_report.commands_run', `cmd ${i}`, '--draft-id', writer],
        env: denv,
      },
      {
        name: 'dispatched: gate, block',
        args: (i) => ['contract', 'gate', '--draft-id', blocked[i]],
        env: denv,
        input: hook,
        exit: 2,
      },
      {
        name: 'dispatched: gate, allow',
        args: () => ['contract', 'gate', '--draft-id', allowed],
        env: denv,
        input: hook,
      },
      {
        name: 'dispatched: contract finalize',
        args: (i) => ['contract', 'finalize', '--draft-id', finals[i]],
        env: denv,
      },
    ],
  };
}

/**
 * `calls` contract_set and as many contract_add calls on one live `handoff mcp` server, over stdio, each sent after
 * the previous answer: the median and p95 of each tool's round trip, in ms.
 */
export async function mcpFigures({ BIN, env, draftId, calls, nodeArgs = [] }) {
  const child = spawn(process.execPath, [...nodeArgs, BIN, 'mcp'], {
    env,
    cwd: env.HANDOFF_HOME,
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  let buffered = '';
  const waiting = new Map();
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    buffered += chunk;
    let nl;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (line.trim() === '') continue;
      const msg = JSON.parse(line);
      waiting.get(msg.id)?.(msg);
      waiting.delete(msg.id);
    }
  });
  let next = 1;
  const request = (method, params) =>
    new Promise((resolve) => {
      const id = next++;
      waiting.set(id, resolve);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  await request('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'bench', version: '1' },
  });
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  const timed = async (name, args) => {
    const t0 = process.hrtime.bigint();
    const answer = await request('tools/call', { name, arguments: args });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (answer.error !== undefined || answer.result?.isError)
      throw new Error(`bench: ${name} failed: ${JSON.stringify(answer).slice(0, 300)}`);
    return ms;
  };
  const set = [];
  const add = [];
  try {
    for (let i = 0; i < calls; i++) {
      set.push(
        await timed('contract_set', { field: 'agent_status.next_action', value: `mcp step ${i}`, draft_id: draftId }),
      );
      add.push(
        await timed('contract_add', { field: 'evidence_report.key_outputs', value: `out ${i}`, draft_id: draftId }),
      );
    }
  } finally {
    // End of input ends the server (it exits on its own; a kill only if it does not).
    const exited = new Promise((done) => child.once('exit', done));
    child.stdin.end();
    const timer = setTimeout(() => child.kill(), 5000);
    await exited;
    clearTimeout(timer);
  }
  const pick = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))];
  return {
    set: { median: pick(set, 0.5), p95: pick(set, 0.95) },
    add: { median: pick(add, 0.5), p95: pick(add, 0.95) },
  };
}

/**
 * Deterministic start-up figures (BENCH_COUNTS=1): instructions retired under callgrind and minor page faults, one
 * run each, for `node -e 0` and each verb (`argvOf(0)` under callgrind, `argvOf(1)` under perf); wall time on a loaded machine is noisy, these counts are not (nearly).
 */
export function countFigures(argvOf, envOf, inputOf = () => undefined) {
  const argv = argvOf(0);
  const input = inputOf(0);
  const cg = join(tmpdir(), `handoff-bench-cg-${process.pid}`);
  const r = spawnSync('valgrind', ['--tool=callgrind', `--callgrind-out-file=${cg}`, process.execPath, ...argv], {
    env: envOf,
    cwd: envOf.HANDOFF_HOME,
    encoding: 'utf8',
    input,
  });
  const m = /Collected : (\d+)/.exec(r.stderr ?? '');
  spawnSync('rm', ['-f', cg]);
  // A run of its own (finalize needs a fresh closed draft: a second finalize of the same one is the no-op path).
  const pf = spawnSync('perf', ['stat', '-x,', '-e', 'page-faults', process.execPath, ...argvOf(1)], {
    env: envOf,
    cwd: envOf.HANDOFF_HOME,
    encoding: 'utf8',
    input: inputOf(1),
  });
  const f = /^(\d+),,page-faults/m.exec(pf.stderr ?? '');
  return { instructions: m ? Number(m[1]) : NaN, faults: f ? Number(f[1]) : NaN };
}
