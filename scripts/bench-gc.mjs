// Part of npm run bench: `contract gc` over 100,000 draft files of which 50,000 are removable
// (aged past the 7-day rule), with a store holding a row for each of the other 50,000 (so the spent probe reads them
// all). Prints the wall time of the whole CLI call; the target is under 10 s. A benchmark, never a timed test.
// Standalone: `node scripts/bench-gc.mjs` (HANDOFF_BIN=<path of bin/run.js> measures another build; GC_DRAFTS=N).
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);

export async function gcBench({ bin, drafts = 100_000, runs = 1 } = {}) {
  const results = [];
  for (let i = 0; i < runs; i++) results.push(gcOnce(bin, drafts));
  return results;
}

function gcOnce(bin, total) {
  const home = mkdtempSync(join(tmpdir(), 'handoff-bench-gc-'));
  const dir = join(home, 'drafts');
  mkdirSync(dir, { mode: 0o700 });
  const agent = `a${randomBytes(8).toString('hex')}`;
  const body = `${JSON.stringify({ agent_status: { agent_state: 'IN_PROGRESS', agent_id: agent, pending_steps: [], next_action: 'pending' } }, null, 2)}\n`;
  const old = (Date.now() - 8 * 86_400_000) / 1000;
  const fresh = [];
  for (let i = 0; i < total; i++) {
    const id = `${agent}.${i.toString(16).padStart(12, '0')}`;
    const path = join(dir, `${id}.json`);
    writeFileSync(path, body, { mode: 0o600 });
    if (i % 2 === 0) utimesSync(path, old, old);
    else fresh.push(id);
  }
  // Create and migrate the store through the tool, then seed a DISPATCHED row per fresh draft (kept: not closed).
  const env = { ...process.env, HANDOFF_HOME: home, NO_COLOR: '1' };
  delete env.HANDOFF_DB;
  spawnSync(process.execPath, [bin, 'approval', 'request', '--content', 'bench'], { env, encoding: 'utf8' });
  const Database = require('better-sqlite3');
  const db = new Database(join(home, 'handoff.db'));
  const insert =
    db.prepare(`INSERT INTO handoffs (contract_id, agent_id, workspace, agent_state, cut_reason, raw_handoff_json, created_at, updated_at)
    VALUES (?, ?, 'bench', 'DISPATCHED', 'never_finalized', '{}', ?, ?)`);
  const now = new Date().toISOString();
  db.transaction(() => {
    for (const id of fresh) insert.run(id, agent, now, now);
  })();
  db.close();

  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [bin, 'contract', 'gc', '--json'], {
    env,
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  let removed = -1;
  try {
    removed = JSON.parse(r.stdout).removed.length;
  } catch {
    // reported below
  }
  const left = readdirSync(dir).length;
  rmSync(home, { recursive: true, force: true });
  return { ms, exit: r.status, removed, left, total };
}

export async function run({ BIN }) {
  const [r] = await gcBench({ bin: BIN, drafts: Number(process.env.GC_DRAFTS ?? 100_000) });
  console.log(
    `\ncontract gc over ${r.total.toLocaleString('en')} drafts, ${(r.total / 2).toLocaleString('en')} removable (target < 10 s):`,
  );
  console.log(`  wall time ${(r.ms / 1000).toFixed(2)} s, exit ${r.exit}, removed ${r.removed}, left ${r.left}`);
  if (r.exit !== 0 || r.removed !== r.total / 2) process.exitCode = 1;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const bin = resolve(process.env.HANDOFF_BIN ?? join(import.meta.dirname, '..', 'bin', 'run.js'));
  await run({ BIN: bin });
}
