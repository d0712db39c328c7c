/**
 * The PostgreSQL store behind a stock PgBouncer (`npm run test:poolers`, not part of `npm test`): every verb in
 * transaction and in session mode, the store's time limits read through the pooler, then the concurrency runs in
 * transaction mode (the one that breaks session state): 8 hosts x 16 dispatch -> add -> fill -> finalize cycles,
 * 64 concurrent finalizes of distinct contracts, 16 racing finalizes of one contract, each with 0 errors, 0
 * duplicates and no advisory lock left in pg_locks; a pooler restart and a PAUSE give named errors within each call's
 * limit with nothing half-written. The fleet figures (direct and pooled) are printed.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import type { Run } from '../../src/store/pg-driver.js';
import type { Store } from '../../src/store/store.js';
import { REPO, run, runAsync, tempHome } from '../helpers/cli.js';
import { dropDatabase, freshDatabase, serverUrl, sql } from '../helpers/pg.js';
import { startBouncer, type Bouncer } from './pgbouncer.js';

const PATCH = {
  agent_status: { agent_state: 'COMPLETE', pending_steps: [], next_action: 'done' },
  evidence_report: { verification: { type: 'command', command: 'npm test', result: 'pass' } },
};
const WS = ['--workspace', 'ws'];
const cycle = (): string[][] => [
  ['contract', 'dispatch', ...WS, '--goal', 'g', '--json'],
  ['contract', 'add', 'evidence_report.commands_run', 'npm test', '--draft-id', '$ID', '--json'],
  ['contract', 'fill', '--draft-id', '$ID', '--json', JSON.stringify(PATCH)],
  ['contract', 'finalize', '--draft-id', '$ID', '--json'],
];
/** Store codes a call may end with when the pooler goes away under it. */
const NAMED = ['STORE_UNREACHABLE', 'STORE_BUSY'];

interface Call {
  verb: string;
  exit: number;
  code?: string;
  id?: string;
  ms: number;
  err?: string;
}

let bouncers: Record<'transaction' | 'session', Bouncer>;
const databases: string[] = [];

beforeAll(async () => {
  bouncers = {
    transaction: await startBouncer(serverUrl(), 'transaction'),
    session: await startBouncer(serverUrl(), 'session'),
  };
});
afterAll(async () => {
  for (const b of Object.values(bouncers ?? {})) await b.stop();
  for (const db of databases) await dropDatabase(db);
});

async function database(): Promise<string> {
  const db = await freshDatabase();
  databases.push(db);
  return db;
}

/** A host: one process running `cycles` one verb after another (test/poolers/host.cjs). */
function host(
  url: string,
  cycles: string[][][],
  env: Record<string, string> = {},
): Promise<{ ms: number; calls: Call[] }> {
  return hostIn(tempHome('handoff-pooler-host-'), url, cycles, env);
}

/** A host in `home` (its drafts stay there for later calls). */
function hostIn(
  home: string,
  url: string,
  cycles: string[][][],
  env: Record<string, string> = {},
): Promise<{ ms: number; calls: Call[] }> {
  return new Promise((done, reject) => {
    const child = spawn(process.execPath, [join(REPO, 'test', 'poolers', 'host.cjs')], {
      cwd: home,
      env: { PATH: process.env.PATH, HOME: home },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.stdin.end(
      JSON.stringify({
        env: { HANDOFF_HOME: home, HANDOFF_STORE_URL: url, PATH: process.env.PATH, ...env },
        cwd: home,
        cycles,
      }),
    );
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`host exited ${code}: ${err}`));
      else done(JSON.parse(out) as { ms: number; calls: Call[] });
    });
  });
}

const failures = (calls: Call[]): string[] => calls.filter((c) => c.exit !== 0).map((c) => `${c.verb}: ${c.err}`);

async function advisoryLocks(url: string): Promise<number> {
  const rows = await sql<{ n: number }>(
    url,
    "SELECT COUNT(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
  );
  return rows[0].n;
}

async function rowsOf(
  url: string,
): Promise<{ contract_id: string; agent_state: string; finalized_at: string | null }[]> {
  return sql(url, 'SELECT contract_id, agent_state, finalized_at FROM handoffs ORDER BY id');
}

for (const mode of ['transaction', 'session'] as const) {
  describe(`through PgBouncer in ${mode} mode`, () => {
    it('every verb works, with the same answers as directly', async () => {
      const url = bouncers[mode].via(await database());
      const home = tempHome('handoff-pooler-verbs-');
      const env = { HANDOFF_STORE_URL: url };
      const ok = (args: string[], input?: string): any => {
        const r = run(home, [...args, '--json'], { env, input });
        expect(r.code, `${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(0);
        return r.json;
      };
      const noJson = (args: string[]): void => {
        const r = run(home, args, { env });
        expect(r.code, `${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(0);
      };
      const refused = (args: string[], exit: number, code: string): void => {
        const r = run(home, [...args, '--json'], { env });
        expect([r.code, r.json?.code], `${args.join(' ')}: ${r.stdout}${r.stderr}`).toEqual([exit, code]);
      };
      ok(['brief', 'add', 'pay', ...WS, '--ac', 'AC-1=paid']);
      ok(['brief', 'list', ...WS]);
      ok(['brief', 'show', 'pay', ...WS]);
      const dispatched = ok(['contract', 'dispatch', ...WS, '--goal', 'g', '--brief', 'pay']);
      const id = dispatched.contract_id as string;
      const token = ['--claim-token', dispatched.claim_token as string];
      ok(['contract', 'claim', '--harness-id', 'run-1', '--draft-id', id, ...token]);
      ok(['contract', 'add', 'evidence_report.commands_run', 'npm test', '--draft-id', id]);
      ok(['contract', 'set', 'agent_status.next_action', 'done', '--draft-id', id]);
      noJson([
        'contract',
        'patch',
        '--draft-id',
        id,
        '--json',
        JSON.stringify({ agent_status: { pending_steps: [] } }),
      ]);
      noJson(['contract', 'fill', '--draft-id', id, '--json', JSON.stringify(PATCH)]);
      ok(['contract', 'view', '--draft-id', id]);
      ok(['evidence', 'add', '--brief', 'pay', ...WS, '--ac', 'AC-1', '--type', 'text', '--text', 'x']);
      ok(['evidence', 'list', '--brief', 'pay', ...WS]);
      const approval = ok(['approval', 'request', '--content', 'deploy prod', '--draft-id', id]);
      const approvalId = (approval.approval_id ?? approval.id) as string;
      ok(['approval', 'list']);
      ok(['approval', 'show', approvalId]);
      ok(['approval', 'decide', approvalId, '--decision', 'approved', '--by', 'me']);
      ok(['approval', 'wait', approvalId, '--timeout', '5s']);
      noJson(['evidence', 'run', '--draft-id', id, '--json', '--', process.execPath, '-e', '0']);
      ok(['evidence', 'receipts', '--draft-id', id]);
      ok(['evidence', 'orphans']);
      ok(['contract', 'validate', '--draft-id', id]);
      const gate = run(home, ['contract', 'gate', '--draft-id', id, '--json'], { env, input: '{}' });
      expect(gate.json?.codes ?? [], gate.stdout + gate.stderr).not.toContain('STORE_UNREACHABLE');
      ok(['contract', 'finalize', '--draft-id', id]);
      ok(['contract', 'list']);
      ok(['contract', 'chain', '--contract-id', id]);
      ok(['contract', 'wait', '--contract-id', id, '--timeout', '5s']);
      ok(['contract', 'gc', '--dry-run']);
      refused(['contract', 'claim', '--harness-id', 'run-2', '--draft-id', id, ...token], 1, 'HARNESS_ID_CONFLICT');
      expect(await advisoryLocks(url.replace(`:${bouncers[mode].port}/`, `:${new URL(serverUrl()).port}/`))).toBe(0);
    });

    it("the store's time limits hold through the pooler (read inside a transaction; a statement past them ends)", async () => {
      const url = bouncers[mode].via(await database());
      const s = (await openStore({ HANDOFF_STORE_URL: url, HANDOFF_STORE_TIMEOUT_MS: '1500' }, undefined, 'writer', {
        create: true,
      })) as Store;
      try {
        const limits = await s.tx(async (t) => {
          const run = (t as unknown as { run: Run }).run;
          const q = await run<Record<string, string>>(
            "SELECT current_setting('statement_timeout') AS s, current_setting('lock_timeout') AS l, current_setting('idle_in_transaction_session_timeout') AS i",
          );
          return q.rows[0];
        });
        expect(limits).toEqual({ s: '1500ms', l: '750ms', i: '1min' });
        const started = Date.now();
        await expect(
          s.tx((t) => (t as unknown as { run: Run }).run('SELECT pg_sleep(30)'), { attempts: 1 }),
        ).rejects.toMatchObject({
          code: 'STORE_UNREACHABLE',
        });
        expect(Date.now() - started).toBeLessThan(30_000); // the limit is 1.5 s; this catches the limit being gone
      } finally {
        await s.close();
      }
    });
  });
}

describe('transaction mode under load (and the same runs directly, for the fleet figure)', () => {
  const HOSTS = 8;
  const CYCLES = 16;
  const FINALIZES = 64;

  for (const path of ['pooled', 'direct'] as const) {
    it(`${path}: ${HOSTS} hosts x ${CYCLES} dispatch -> add -> fill -> finalize cycles: 0 errors, 0 duplicates, no advisory lock left`, async () => {
      const db = await database();
      const url = path === 'pooled' ? bouncers.transaction.via(db) : db;
      await host(url, [[['contract', 'list', '--json']]]); // creates nothing: the first dispatch migrates
      const started = Date.now();
      const runs = await Promise.all(
        Array.from({ length: HOSTS }, () => host(url, Array.from({ length: CYCLES }, cycle))),
      );
      const seconds = (Date.now() - started) / 1000;
      const calls = runs.flatMap((r) => r.calls);
      expect(failures(calls)).toEqual([]);
      const rows = await rowsOf(db);
      expect(rows).toHaveLength(HOSTS * CYCLES);
      expect(new Set(rows.map((r) => r.contract_id)).size).toBe(HOSTS * CYCLES);
      expect(rows.every((r) => r.agent_state === 'COMPLETE' && r.finalized_at !== null)).toBe(true);
      expect(await advisoryLocks(db)).toBe(0);
      console.log(
        `fleet figure (${path}): ${HOSTS} hosts x ${CYCLES} cycles in ${seconds.toFixed(1)} s = ${((HOSTS * CYCLES) / seconds).toFixed(2)} cycles/s`,
      );
    });

    it(`${path}: ${FINALIZES} concurrent finalizes of distinct contracts, then 16 racing finalizes of one: one row each, 0 errors`, async () => {
      const db = await database();
      const url = path === 'pooled' ? bouncers.transaction.via(db) : db;
      const home = tempHome('handoff-pooler-fin-');
      // The drafts, prepared by one host in this home.
      const prep = await hostIn(
        home,
        url,
        Array.from({ length: FINALIZES + 1 }, () => cycle().slice(0, 3)),
      );
      expect(failures(prep.calls)).toEqual([]);
      const ids = [...new Set(prep.calls.map((c) => c.id as string))];
      expect(ids).toHaveLength(FINALIZES + 1);
      const env = { HANDOFF_STORE_URL: url };
      const started = Date.now();
      const fins = await Promise.all(
        ids
          .slice(0, FINALIZES)
          .map((id) => runAsync(home, ['contract', 'finalize', '--draft-id', id, '--json'], { env })),
      );
      const seconds = (Date.now() - started) / 1000;
      expect(fins.filter((r) => r.code !== 0).map((r) => r.stdout + r.stderr)).toEqual([]);
      expect(fins.every((r) => r.json.created === true)).toBe(true);

      const one = ids[FINALIZES];
      const race = await Promise.all(
        Array.from({ length: 16 }, () =>
          runAsync(home, ['contract', 'finalize', '--draft-id', one, '--json'], { env }),
        ),
      );
      expect(race.filter((r) => r.code !== 0).map((r) => r.stdout + r.stderr)).toEqual([]);
      expect(race.filter((r) => r.json.created === true)).toHaveLength(1);
      const rows = await rowsOf(db);
      expect(rows).toHaveLength(FINALIZES + 1);
      expect(new Set(rows.map((r) => r.contract_id)).size).toBe(FINALIZES + 1);
      expect(rows.every((r) => r.agent_state === 'COMPLETE')).toBe(true);
      expect(await advisoryLocks(db)).toBe(0);
      console.log(
        `fleet figure (${path}): ${FINALIZES} concurrent finalizes (processes) in ${seconds.toFixed(1)} s = ${(FINALIZES / seconds).toFixed(2)} finalizes/s`,
      );
    });
  }
});

describe('the pooler goes away or pauses (transaction mode)', () => {
  const LIMIT_MS = 2000;
  /** What a call may take past its store limit (the client stops waiting at the limit): closing and scheduling. */
  const GRACE_MS = 1500;

  it('a restart under a call: STORE_UNREACHABLE within the limit, the transaction not written; the next call works', async () => {
    const db = await database();
    const url = bouncers.transaction.via(db);
    const s = (await openStore(
      { HANDOFF_STORE_URL: url, HANDOFF_STORE_TIMEOUT_MS: String(LIMIT_MS) },
      undefined,
      'writer',
      {
        create: true,
      },
    )) as Store;
    try {
      let cut = 0;
      const e = await s
        .tx(
          async (t) => {
            await t.upsertFinalRow({
              contract_id: 'a0123456789abcdef.0123456789ab',
              agent_id: 'a0123456789abcdef',
              workspace: 'ws',
              agent_state: 'BLOCKED',
              json: '{}',
              plan_task_id: null,
            });
            await bouncers.transaction.restart();
            cut = Date.now();
            await t.now();
          },
          { attempts: 1 },
        )
        .then(
          () => ({}),
          (failure: unknown) => failure as { code?: string },
        );
      expect(e).toMatchObject({ code: 'STORE_UNREACHABLE', exit: 4 });
      expect(Date.now() - cut).toBeLessThan(LIMIT_MS + GRACE_MS);
      expect(await rowsOf(db)).toEqual([]);
      expect(await s.tx((t) => t.now())).toMatch(/Z$/);
    } finally {
      await s.close();
    }
  });

  it('a restart mid-run of 8 hosts: every call succeeds or ends with a named store error within its limit; nothing half-written', async () => {
    const db = await database();
    const url = bouncers.transaction.via(db);
    await host(url, [[['contract', 'list', '--json']]]);
    const runs = Promise.all(
      Array.from({ length: 8 }, () =>
        host(url, Array.from({ length: 4 }, cycle), { HANDOFF_STORE_TIMEOUT_MS: String(LIMIT_MS) }),
      ),
    );
    // Restart once the run is under way (some rows written).
    // (before the first dispatch creates the store, no table: none yet)
    while ((await rowsOf(db).catch(() => [])).length < 4) await new Promise((done) => setTimeout(done, 20));
    await bouncers.transaction.restart();
    const calls = (await runs).flatMap((r) => r.calls);
    const failed = calls.filter((c) => c.exit !== 0);
    expect(failed.filter((c) => c.exit !== 4 || !NAMED.includes(String(c.code))).map((c) => c.err)).toEqual([]);
    expect(failed.filter((c) => c.ms > LIMIT_MS + GRACE_MS + 1000).map((c) => `${c.verb} ${c.ms} ms`)).toEqual([]);
    // Each row is whole: a finalized one COMPLETE with its time, an unfinalized one still DISPATCHED; each finalize
    // that succeeded is in a COMPLETE row.
    const rows = await rowsOf(db);
    for (const r of rows)
      expect(r.agent_state === 'COMPLETE' ? r.finalized_at !== null : r.agent_state === 'DISPATCHED').toBe(true);
    const complete = new Set(rows.filter((r) => r.agent_state === 'COMPLETE').map((r) => r.contract_id));
    for (const c of calls.filter((c) => c.verb === 'contract finalize' && c.exit === 0))
      expect(complete.has(c.id!)).toBe(true);
    expect(await advisoryLocks(db)).toBe(0);
    console.log(
      `pooler restart mid-run: ${calls.length} calls, ${failed.length} ended with ${[...new Set(failed.map((c) => c.code))].join(', ') || 'nothing'}`,
    );
  });

  it('PAUSE: a verb waiting on the paused pooler ends with a named store error within its limit; draft and row unchanged', async () => {
    const db = await database();
    const url = bouncers.transaction.via(db);
    const home = tempHome('handoff-pooler-pause-');
    const env = { HANDOFF_STORE_URL: url, HANDOFF_STORE_TIMEOUT_MS: String(LIMIT_MS) };
    const d = run(home, ['contract', 'dispatch', ...WS, '--goal', 'g', '--json'], { env });
    expect(d.code, d.stderr).toBe(0);
    const id = d.json.contract_id as string;
    const file = join(home, 'drafts', `${id}.json`);
    const draftBefore = readFileSync(file, 'utf8');
    const rowBefore = await rowsOf(db);
    await bouncers.transaction.admin('PAUSE');
    let r;
    let ms;
    try {
      const t0 = Date.now();
      r = await runAsync(home, ['contract', 'fill', '--draft-id', id, '--json', JSON.stringify(PATCH)], { env });
      ms = Date.now() - t0;
    } finally {
      await bouncers.transaction.admin('RESUME');
    }
    expect(r.code, r.stdout + r.stderr).toBe(4);
    expect(r.stdout + r.stderr).toMatch(/STORE_UNREACHABLE|STORE_BUSY/);
    console.log(`PAUSE: contract fill ended in ${ms} ms (limit ${LIMIT_MS} ms)`);
    expect(ms).toBeLessThan(LIMIT_MS + GRACE_MS + 1000); // + the process's own start and end
    expect(readFileSync(file, 'utf8')).toBe(draftBefore);
    expect(await rowsOf(db)).toEqual(rowBefore);
  });
});
