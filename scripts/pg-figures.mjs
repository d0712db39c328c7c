// The PostgreSQL figures (a measurement, never a test; not run by `npm test`):
//   1. 1,000,000 rows in `handoffs` (bulk-inserted with generate_series: 1,000 agents, 10,000 plan tasks), then the
//      query `contract list --agent-id X` and `--plan-task-id Y` issue, timed in-process: the list service's own
//      function (src/store/queries/handoffs.ts listHandoffs on pg-dialect.ts, compiled on the fly with esbuild), default limit 20. Target:
//      under 50 ms. The plan of each query is printed too (it must use handoffs_agent_idx / handoffs_plan_task_idx).
//   2. 64 concurrent `contract finalize` processes from 8 data roots sharing the server: 8 contracts, each draft
//      present in all 8 data roots, every root finalizing every contract at once. Prints the errors (target 0), the
//      created:true count (must be 8: one per contract) and the throughput. Needs the finalize rewiring onto the
//      Store (branch pg2).
// Usage: npm run build && node scripts/pg-figures.mjs [--rows N] [--skip-finalize]
//        (HANDOFF_STORE_URL=postgres://… uses that server's database instead of starting one; it must be empty.)
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import pg from 'pg';
import { startServer } from './pg-server.mjs';

const repo = resolve(dirname(new URL(import.meta.url).pathname), '..');
const bin = join(repo, 'bin', 'run.js');
const { values } = parseArgs({
  options: { rows: { type: 'string' }, 'skip-finalize': { type: 'boolean' }, 'list-indexes': { type: 'boolean' } },
});
const ROWS = Number(values.rows ?? 1_000_000);
const AGENTS = 1000;
const TASKS = 10_000;
/** An agent with one row, the oldest of the table (and the rare workspace's and state's rows share its prefix). */
const RARE_AGENT = 'a0000000000fffff0';

const work = mkdtempSync(join(tmpdir(), 'handoff-pg-figures-'));
let server;
let url = process.env.HANDOFF_STORE_URL;
if (url === undefined || url === '') {
  server = await startServer();
  const admin = new pg.Client({ connectionString: server.url() });
  await admin.connect();
  await admin.query('CREATE DATABASE figures');
  await admin.end();
  url = server.url('figures');
}

const handoff = (home, args) =>
  spawnSync(process.execPath, [bin, ...args], {
    env: { ...process.env, HANDOFF_HOME: home, HANDOFF_STORE_URL: url, HANDOFF_WORKSPACE: 'ws', NO_COLOR: '1' },
    encoding: 'utf8',
  });

try {
  // The schema, made by the tool itself (a writer with create migrates an empty database).
  const setup = handoff(join(work, 'setup'), ['brief', 'add', 'figures', '--json']);
  if (setup.status !== 0) throw new Error(`setup failed: ${setup.stderr}${setup.stdout}`);
  await listFigures();
  if (!values['skip-finalize']) await finalizeFigures();
} finally {
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
}

async function listFigures() {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const agent = (g) => `'a' || lpad(to_hex(${g} % ${AGENTS}), 16, '0')`;
    let t0 = performance.now();
    await client.query(`
      INSERT INTO handoffs (contract_id, agent_id, workspace, agent_state, raw_handoff_json, plan_task_id, created_at, updated_at)
      SELECT ${agent('g')} || '.' || lpad(to_hex(g), 12, '0'), ${agent('g')}, 'ws', 'COMPLETE', '{}',
             'task-' || (g % ${TASKS}),
             to_char(timestamp '2026-01-01' + g * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
             to_char(timestamp '2026-01-01' + g * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
        FROM generate_series(1, ${ROWS}) AS g`);
    // The rare ones: an agent, a workspace and a state that each have one row, the oldest of the table. Without an
    // index that starts with the filtered column, the plan walks the created_at index from the newest row with a
    // filter, which is quick for a busy agent and a scan of the whole table for these.
    await client.query(`
      INSERT INTO handoffs (contract_id, agent_id, workspace, agent_state, raw_handoff_json, plan_task_id, created_at, updated_at)
      VALUES ('${RARE_AGENT}.000000000001', '${RARE_AGENT}', 'ws', 'COMPLETE', '{}', NULL, '2025-12-31T00:00:00.000Z', '2025-12-31T00:00:00.000Z'),
             ('${RARE_AGENT}.000000000002', 'a0000000000fffff1', 'ws-rare', 'COMPLETE', '{}', NULL, '2025-12-31T00:00:01.000Z', '2025-12-31T00:00:01.000Z'),
             ('${RARE_AGENT}.000000000003', 'a0000000000fffff1', 'ws', 'NEEDS_INPUT', '{}', NULL, '2025-12-31T00:00:02.000Z', '2025-12-31T00:00:02.000Z')`);
    // --list-indexes: the indexes that let the filtered lists start at the filter's newest row (each filter column
    // followed by the list's order), to measure them before a migration adds them.
    if (values['list-indexes']) {
      await client.query('CREATE INDEX handoffs_agent_created_idx ON handoffs (agent_id, created_at, id)');
      await client.query('CREATE INDEX handoffs_state_created_idx ON handoffs (agent_state, created_at, id)');
      await client.query('CREATE INDEX handoffs_workspace_created_id_idx ON handoffs (workspace, created_at, id)');
    }
    await client.query('ANALYZE handoffs');
    console.log(`inserted ${ROWS} handoff rows in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    const out = join(work, 'pg-list.mjs');
    await build({
      stdin: {
        contents: `import { onPg } from './pg-dialect.js';
                   import { handoffReads } from './queries/handoffs.js';
                   export const listHandoffs = (run, f) => onPg(run, handoffReads.listHandoffs(f));`,
        resolveDir: join(repo, 'src', 'store'),
        loader: 'ts',
      },
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile: out,
      external: ['pg', 'better-sqlite3'],
      logLevel: 'error',
    });
    const { listHandoffs } = await import(out);
    let lastSql;
    const run = async (text, params) => {
      lastSql = { text, params };
      const r = await client.query(text, params);
      return { rows: r.rows, rowCount: r.rowCount ?? 0 };
    };
    for (const [label, filters] of [
      [
        'contract list --agent-id X',
        (i) => ({ agent_id: `a${((i * 37) % AGENTS).toString(16).padStart(16, '0')}`, limit: 20 }),
      ],
      ['contract list --plan-task-id Y', (i) => ({ plan_task_id: `task-${(i * 101) % TASKS}`, limit: 20 })],
      ['contract list --agent-id <rare: one row, the oldest>', () => ({ agent_id: RARE_AGENT, limit: 20 })],
      ['contract list --workspace <rare: one row, the oldest>', () => ({ workspace: 'ws-rare', limit: 20 })],
      ['contract list --state <rare: one row, the oldest>', () => ({ agent_state: 'NEEDS_INPUT', limit: 20 })],
    ]) {
      await listHandoffs(run, filters(0)); // warm the cache
      const times = [];
      let rows = 0;
      for (let i = 1; i <= 50; i++) {
        t0 = performance.now();
        rows = (await listHandoffs(run, filters(i))).length;
        times.push(performance.now() - t0);
      }
      times.sort((a, b) => a - b);
      const plan = (await client.query(`EXPLAIN ${lastSql.text}`, lastSql.params)).rows.map((r) => r['QUERY PLAN']);
      console.log(
        `${label}: median ${times[25].toFixed(2)} ms, p95 ${times[47].toFixed(2)} ms, max ${times[49].toFixed(2)} ms (${rows} rows each; target < 50 ms, the rare ones < 10 ms)`,
      );
      console.log(`  plan: ${plan.join(' | ')}`);
    }
    await client.query('DELETE FROM handoffs');
  } finally {
    await client.end();
  }
}

async function finalizeFigures() {
  const ROOTS = 8;
  const CONTRACTS = 8;
  const roots = Array.from({ length: ROOTS }, (_, i) => join(work, `host-${i}`));
  const close = JSON.stringify({
    agent_status: { agent_state: 'COMPLETE', next_action: 'done', pending_steps: [] },
    evidence_report: { verification: { type: 'command', command: 'npm test', result: 'pass' } },
  });
  const ids = [];
  for (let c = 0; c < CONTRACTS; c++) {
    const init = handoff(roots[0], ['contract', 'init', '--json']);
    if (init.status !== 0) throw new Error(`contract init failed: ${init.stderr}`);
    const id = JSON.parse(init.stdout).draft_id;
    const fill = handoff(roots[0], ['contract', 'fill', '--draft-id', id, '--json', close]);
    if (fill.status !== 0) throw new Error(`contract fill failed: ${fill.stderr}${fill.stdout}`);
    ids.push(id);
  }
  // The same drafts on every host (draft files and their birth records), as if each host had adopted them.
  const drafts = join(roots[0], 'drafts');
  for (const root of roots.slice(1)) {
    mkdirSync(join(root, 'drafts'), { recursive: true, mode: 0o700 });
    for (const name of readdirSync(drafts))
      if (name.endsWith('.json')) copyFileSync(join(drafts, name), join(root, 'drafts', name));
  }
  const t0 = performance.now();
  const results = await Promise.all(
    roots.flatMap((root) =>
      ids.map(
        (id) =>
          new Promise((done) => {
            const child = spawn(process.execPath, [bin, 'contract', 'finalize', '--draft-id', id, '--json'], {
              env: { ...process.env, HANDOFF_HOME: root, HANDOFF_STORE_URL: url, NO_COLOR: '1' },
            });
            let stdout = '';
            let stderr = '';
            child.stdout.on('data', (d) => (stdout += d));
            child.stderr.on('data', (d) => (stderr += d));
            child.on('exit', (code) => done({ code, stdout, stderr }));
          }),
      ),
    ),
  );
  const seconds = (performance.now() - t0) / 1000;
  const errors = results.filter((r) => r.code !== 0);
  const created = results.filter((r) => r.code === 0 && JSON.parse(r.stdout).created === true).length;
  console.log(
    `64 concurrent finalizes from ${ROOTS} data roots: ${errors.length} error(s), created:true ${created} (expected ${CONTRACTS}), ${seconds.toFixed(2)} s, ${(results.length / seconds).toFixed(1)} finalizes/s`,
  );
  for (const e of errors.slice(0, 3))
    console.log(`  error (exit ${e.code}): ${(e.stderr || e.stdout).trim().split('\n')[0]}`);
  if (!existsSync(drafts)) console.log('  (the drafts folder of host-0 is gone)');
}
