// Writes the V8 code cache of one CLI bundle (run by scripts/build.mjs: `warm-cache.cjs <bundle> hot|store|mcp`): one
// process loads the bundle without a cache, runs the verbs that bundle serves most on a throw-away data root, then
// saves the code V8 compiled meanwhile. Only those paths: every function in a cache is deserialized by every call
// that reads it, used or not.
// - hot: the hot verbs (init, set, add, fill, view, validate), the only ones dist/cli/handoff-hot.cjs holds. Not
//   their mirror onto a dispatched row: its functions in the cache cost every draft-only call what they save a
//   dispatched one (measured: about 5 M instructions either way).
// - store: finalize and list, the store verbs an agent's turn ends with, and the stop gate that runs at every stop
//   (its block and allow paths, on contracts dispatched by child processes so dispatch's own code stays out);
//   dist/cli/handoff.cjs serves all others.
// - mcp: a session of `handoff mcp` (dist/cli/handoff-mcp.cjs): initialize, the tool list, and writes that land and
//   one that is refused.
'use strict';
const { spawnSync } = require('node:child_process');
const { mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { loadBundle, writeCache, HOT_VERBS } = require('../bin/run.js');

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
  },
  async store(cli) {
    await cli.main(['contract', 'init', '--json', ...d]);
    await cli.main(['contract', 'fill', '--json', '{"agent_status":{"agent_state":"BLOCKED"}}', ...d]);
    await cli.main(['contract', 'finalize', ...d]);
    await cli.main(['contract', 'list', '--json']);
    const open = dispatched();
    const closed = dispatched();
    await cli.main(['contract', 'fill', '--json', '{"agent_status":{"agent_state":"BLOCKED"}}', '--draft-id', closed]);
    await cli.main(['contract', 'finalize', '--draft-id', closed]);
    await withStdin(HOOK, () => cli.main(['contract', 'gate', '--draft-id', open]));
    await withStdin(HOOK, () => cli.main(['contract', 'gate', '--draft-id', closed]));
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

/** A contract dispatched by a child process (its id), so the warm-up process never runs dispatch's code. */
function dispatched() {
  const r = spawnSync(
    process.execPath,
    [join(__dirname, '..', 'bin', 'run.js'), 'contract', 'dispatch', '--goal', 'warm', '--json'],
    { encoding: 'utf8' },
  );
  return JSON.parse(r.stdout).contract_id;
}

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
    // The hot bundle's cache must hold every hot verb: a verb added to bin/run.js's HOT_VERBS is added here too.
    const unwarmed = kind === 'hot' ? [...HOT_VERBS].filter((id) => !ran.has(id)) : [];
    if (unwarmed.length > 0) throw new Error(`warm-cache: the hot run does not call ${unwarmed.join(', ')}`);
    writeCache(script, file);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
  process.exitCode = 0;
}
void main();
