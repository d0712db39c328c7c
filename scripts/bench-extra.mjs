// Part of npm run bench: `contract list` over 100,000 rows, the receipt tree fingerprint on 10,000 files, finalize's
// test-change check on 10,000 files (scripts/bench-test-changes.mjs), and the hardening timing targets (scripts/bench-hardening.mjs: gc at scale, an unusable root, locks).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const require = createRequire(import.meta.url);

export async function run({ REPO, BIN, env, home, median, RUNS }) {
  const handoff = (args) => spawnSync(process.execPath, [BIN, ...args], { env, encoding: 'utf8', cwd: home });
  // Create and migrate the store through the tool itself, then seed rows in bulk.
  handoff(['approval', 'request', '--content', 'bench']);
  const Database = require('better-sqlite3');
  const db = new Database(join(home, 'handoff.db'));
  const seed = '{"agent_status":{"agent_state":"BLOCKED"}}';
  const insert =
    db.prepare(`INSERT INTO handoffs (contract_id, agent_id, workspace, agent_state, cut_reason, raw_handoff_json, kind, plan_task_id, created_at, updated_at)
    VALUES (@c, @a, @w, @s, NULL, @j, @k, @p, @t, @t)`);
  const states = ['COMPLETE', 'BLOCKED', 'NEEDS_INPUT', 'NEEDS_VERIFICATION', 'APPROVAL_REQUEST'];
  const N = 100_000;
  const agents = [];
  db.transaction(() => {
    for (let i = 0; i < N; i++) {
      const agent = `a${(i % 5000).toString(16).padStart(16, '0')}`;
      if (i < 5000) agents.push(agent);
      const t = new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString();
      insert.run({
        c: `${agent}.${i.toString(16).padStart(12, '0')}`,
        a: agent,
        w: `ws${i % 50}`,
        s: states[i % 5],
        j: seed,
        k: 'bench',
        p: i % 3 === 0 ? `T-${i % 977}` : null,
        t,
      });
    }
  })();
  db.close();

  const time = (args) => {
    const t0 = process.hrtime.bigint();
    const r = handoff(args);
    if (r.status !== 0) throw new Error(`bench: list exited ${r.status}: ${r.stderr}`);
    return Number(process.hrtime.bigint() - t0) / 1e6;
  };
  const base = [];
  const cases = [
    [
      '--agent-id <one agent> (20 rows)',
      (i) => ['contract', 'list', '--agent-id', agents[(i * 37) % agents.length], '--json'],
    ],
    ['--plan-task-id T-42', () => ['contract', 'list', '--plan-task-id', 'T-42', '--json']],
    ['--state COMPLETE --limit 20', () => ['contract', 'list', '--state', 'COMPLETE', '--json']],
    ['--workspace ws7 --limit 1000', () => ['contract', 'list', '--workspace', 'ws7', '--limit', '1000', '--json']],
  ];
  const results = cases.map(() => []);
  for (let i = 0; i < RUNS; i++) {
    const t0 = process.hrtime.bigint();
    spawnSync(process.execPath, ['-e', '0']);
    base.push(Number(process.hrtime.bigint() - t0) / 1e6);
    cases.forEach(([, args], k) => results[k].push(time(args(i))));
  }
  // The query alone, in-process, through the same repository function the verb uses.
  const { openReader } = await import(join(REPO, 'dist', 'store', 'db.js'));
  const { listHandoffs } = await import(join(REPO, 'dist', 'store', 'handoff-list.js'));
  const rdb = openReader(env, home);
  const q = [];
  for (let i = 0; i < 200; i++) {
    const t0 = process.hrtime.bigint();
    listHandoffs(rdb, { agent_id: agents[(i * 37) % agents.length], limit: 20 });
    q.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  rdb.close();
  console.log(
    `\ncontract list over ${N.toLocaleString('en')} rows: median wall time of the whole CLI call (node -e 0: ${median(base).toFixed(1)} ms)`,
  );
  cases.forEach(([name], k) => console.log(`  ${name.padEnd(34)} ${median(results[k]).toFixed(1).padStart(7)} ms`));
  console.log(`  query alone, --agent-id (in-process, median of 200): ${median(q).toFixed(3)} ms`);

  const { fingerprintBench } = await import('./bench-fingerprint.mjs');
  const fp = await fingerprintBench({ files: 10_000, runs: 5 });
  console.log(
    `\nreceipt tree fingerprint, ${fp.files.toLocaleString('en')}-file git repository (median of ${fp.runs}):`,
  );
  console.log(`  all tracked, 20 edited + 20 untracked   ${fp.dirtyMedianMs.toFixed(1).padStart(7)} ms`);
  console.log(`  all ${fp.files} files untracked (hashed) ${fp.untrackedMedianMs.toFixed(1).padStart(7)} ms`);

  const { testChangesBench, testChangesLines } = await import('./bench-test-changes.mjs');
  console.log(`\n${testChangesLines(await testChangesBench({ files: 10_000, runs: 11 })).join('\n')}`);

  const hardening = await import('./bench-hardening.mjs');
  await hardening.run({ BIN, median, RUNS });
}
