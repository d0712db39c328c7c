// Writes the V8 code cache of one CLI bundle (run by scripts/build.mjs: `warm-cache.cjs <bundle> hot|stop|full|mcp`):
// one process loads the bundle without a cache, runs the verbs that bundle serves most on a throw-away data root, then
// saves the code V8 compiled meanwhile. Only those paths: every function in a cache is deserialized by every call
// that reads it, used or not. What a run needs but its bundle does not serve (a dispatch, a fill) runs in a child
// process, so its code stays out.
// - hot: the hot verbs (init, set, add, fill, view, validate), the only ones dist/cli/handoff-hot.cjs holds, on a
//   draft and then on a dispatched contract, whose writes mirror onto its row. The mirror's functions cost a
//   draft-only write about 1 ms to deserialize and spare a dispatched one about 3 ms of compiling; a dispatched turn
//   is where agents make these calls.
// - stop: the stop gate that runs at every stop (its block and allow paths) and finalize (of a draft and of a
//   dispatched contract), the only verbs dist/cli/handoff-stop.cjs holds.
// - full: dispatch and list, the orchestrator's verbs; dist/cli/handoff.cjs serves every verb the others do not.
// - mcp: a session of `handoff mcp` (dist/cli/handoff-mcp.cjs): initialize, the tool list, and writes that land and
//   one that is refused.
'use strict';
const { spawnSync } = require('node:child_process');
const { mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { loadBundle, writeCache, HOT_VERBS, STOP_VERBS } = require('../bin/run.js');

const D = 'a0123456789abcdef.0123456789ab';
const d = ['--draft-id', D];

const RUNS = {
  async hot(cli, home) {
    const file = join(home, 'envelope.json');
    await cli.main(['contract', 'init', '--json', ...d]);
    await cli.main(['contract', 'set', 'work_phase', 'executing', ...d]);
    await cli.main(['contract', 'set', 'agent_status.agent_state', 'COMPLET', ...d]);
    await cli.main(['contract', 'add', 'evidence_report.files_checked', 'a.ts', ...d]);
    await cli.main(['contract', 'fill', '--json', '{"report_prose":"warm"}', ...d]);
    await cli.main(['contract', 'view', ...d]);
    await cli.main(['contract', 'view', '--json', ...d]);
    await cli.main(['contract', 'validate', ...d]);
    writeFileSync(file, '{}');
    await cli.main(['contract', 'validate', '--file', file, '--json']);
    const turn = dispatched();
    await cli.main(['contract', 'set', 'work_phase', 'executing', '--draft-id', turn]);
    await cli.main(['contract', 'set', 'agent_status.next_action', 'warm', '--draft-id', turn]);
    await cli.main(['contract', 'add', 'evidence_report.commands_run', 'npm test', '--draft-id', turn]);
  },
  async stop(cli) {
    child(['contract', 'init', ...d]);
    child(['contract', 'fill', '--json', BLOCKED, ...d]);
    await cli.main(['contract', 'finalize', ...d]);
    const open = dispatched();
    const closed = dispatched();
    child(['contract', 'fill', '--json', BLOCKED, '--draft-id', closed]);
    await cli.main(['contract', 'finalize', '--draft-id', closed]);
    await withStdin(HOOK, () => cli.main(['contract', 'gate', '--draft-id', open]));
    await withStdin(HOOK, () => cli.main(['contract', 'gate', '--draft-id', closed]));
    // The pre-tool hook's allow path: a call that matches no approval pattern.
    await withStdin(PRE_TOOL, () => cli.main(['approval', 'gate']));
  },
  async full(cli) {
    await cli.main(['contract', 'dispatch', '--goal', 'warm', '--json']);
    await cli.main(['contract', 'list', '--json']);
  },
  async mcp(cli) {
    const call = (id, name, args) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
    const session = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'warm', version: '1' } },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      call(3, 'contract_init', { draft_id: D }),
      call(4, 'contract_set', { draft_id: D, field: 'work_phase', value: 'executing' }),
      call(5, 'contract_add', { draft_id: D, field: 'evidence_report.commands_run', value: 'npm test' }),
      call(6, 'contract_set', { draft_id: D, field: 'work_phase', value: 'no such phase' }),
    ];
    await withStdin(session.map((m) => `${JSON.stringify(m)}\n`).join(''), () => cli.main(['mcp']));
  },
};

/** A pre-tool hook's input (Claude Code PreToolUse), as the approval gate reads it on stdin. */
const PRE_TOOL = JSON.stringify({
  hook_event_name: 'PreToolUse',
  session_id: 'warm',
  tool_name: 'Bash',
  tool_input: { command: 'ls' },
});
/** A stop hook's input, as the gate reads it on stdin. */
const HOOK = JSON.stringify({ hook_event_name: 'Stop', session_id: 'warm', stop_reason: 'end_turn' });

/** Runs `fn` with `text` as process.stdin (the gate reads its hook input there). */
async function withStdin(text, fn) {
  const { Readable } = require('node:stream');
  const own = Object.getOwnPropertyDescriptor(process, 'stdin');
  Object.defineProperty(process, 'stdin', { value: Readable.from([Buffer.from(text)]), configurable: true });
  try {
    await fn();
  } finally {
    if (own !== undefined) Object.defineProperty(process, 'stdin', own);
  }
}

/** A closing fill. */
const BLOCKED = '{"agent_status":{"agent_state":"BLOCKED"}}';

/** Runs the CLI in a child process (its stdout), so its code stays out of this process's cache; a failure throws. */
function child(args) {
  const r = spawnSync(process.execPath, [join(__dirname, '..', 'bin', 'run.js'), ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`warm-cache: ${args.slice(0, 2).join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

/** A contract dispatched by a child process (its id), so the warm-up process never runs dispatch's code. */
const dispatched = () => JSON.parse(child(['contract', 'dispatch', '--goal', 'warm', '--json'])).contract_id;

async function main() {
  const [file, kind] = process.argv.slice(2);
  if (RUNS[kind] === undefined) throw new Error(`warm-cache: no warm-up named ${kind}`);
  const home = mkdtempSync(join(tmpdir(), 'handoff-warm-'));
  process.env.HANDOFF_HOME = home;
  process.env.HANDOFF_WORKSPACE = 'warm';
  process.env.NO_COLOR = '1';
  try {
    const { script, exports: cli } = loadBundle(false, file);
    const ran = new Set();
    const main = (argv) => (ran.add(`${argv[0]}:${argv[1]}`), cli.main(argv));
    await RUNS[kind]({ main }, home);
    // The cache of a bundle that holds only some verbs must hold every one of them: a verb added to bin/run.js's
    // HOT_VERBS or STOP_VERBS is added here too.
    const served = { hot: HOT_VERBS, stop: STOP_VERBS }[kind] ?? new Set();
    const unwarmed = [...served].filter((id) => !ran.has(id));
    if (unwarmed.length > 0) throw new Error(`warm-cache: the ${kind} run does not call ${unwarmed.join(', ')}`);
    writeCache(script, file);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
  process.exitCode = 0;
}
void main();
