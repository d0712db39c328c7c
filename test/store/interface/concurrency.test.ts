/**
 * Writers on one store from several processes: racing finalize transactions on one contract
 * give one row and one created:true, racing decides of one approval one change, and a held lock is STORE_BUSY. The
 * racers are separate node processes on the built dist/ (npm test builds first), released together by a barrier
 * file, and each holds its transaction open a while after its read, so without the store's serialization they
 * would overlap.
 */
import { createHash } from 'node:crypto';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { loadSqlite } from '../../../src/store/sqlite.js';
import { BACKENDS, dist, rejection } from '../../helpers/store-backends.js';

const AGENT = 'a0123456789abcdef';
const ID = `${AGENT}.0123456789ab`;

/** The child's preamble: open the writer, say ready, wait for the barrier file. */
const PREAMBLE = `
  const { existsSync } = await import('node:fs');
  const { openStore } = await import(${dist('store/open-store.js')});
  const store = await openStore(process.env, undefined, 'writer', { create: true });
  console.log('ready');
  while (!existsSync(process.env.BARRIER)) await new Promise((r) => setTimeout(r, 5));
  const hold = () => new Promise((r) => setTimeout(r, 150));`;

/** Starts `n` racers, releases them together once all are ready; each one's exit code and last stdout line. */
async function race(
  n: number,
  body: string,
  env: NodeJS.ProcessEnv,
  args: (i: number) => string[],
): Promise<{ code: number | null; out: string; err: string }[]> {
  const barrier = join(mkdtempSync(join(tmpdir(), 'handoff-race-')), 'go');
  let ready = 0;
  const runs = Array.from(
    { length: n },
    (_, i) =>
      new Promise<{ code: number | null; out: string; err: string }>((done) => {
        const child = spawn(
          process.execPath,
          ['--input-type=module', '-e', `${PREAMBLE}\n${body}\nawait store.close();`, ...args(i)],
          {
            env: { ...process.env, ...env, BARRIER: barrier },
            stdio: ['ignore', 'pipe', 'pipe'],
          },
        );
        let out = '';
        let err = '';
        child.stdout.on('data', (c: Buffer) => {
          const before = out.includes('ready');
          out += c.toString();
          if (!before && out.includes('ready') && ++ready === n) writeFileSync(barrier, '');
        });
        child.stderr.on('data', (c: Buffer) => (err += c.toString()));
        child.on('exit', (code) => done({ code, out: out.trim().split('\n').pop() ?? '', err }));
      }),
  );
  const results = await Promise.all(runs);
  expect(existsSync(barrier)).toBe(true);
  return results;
}

describe.each(BACKENDS)('$name: writers in several processes', (b) => {
  it('six processes finalizing one contract at once: one row, one created:true, the rest an identical no-op', async () => {
    const f = await b.fresh();
    await (await f.writer()).close();
    const body = `
      const [id, json] = process.argv.slice(1);
      const out = await store.tx(async (t) => {
        const row = await t.getHandoffByContractId(id);
        await hold();
        if (row !== undefined && row.agent_state === 'BLOCKED' && row.raw_handoff_json === json && row.cut_reason === null) {
          return { created: false, id: row.id };
        }
        const written = await t.upsertFinalRow({ contract_id: id, agent_id: id.split('.')[0], workspace: 'ws',
                                                 agent_state: 'BLOCKED', json, plan_task_id: null });
        return { created: written !== undefined, id: written };
      }, { lock: id });
      console.log(JSON.stringify(out));`;
    const runs = await race(6, body, f.env, () => [ID, '{"agent_status":{"agent_state":"BLOCKED"}}']);
    expect(runs.map((r) => [r.code, r.err])).toEqual(runs.map(() => [0, '']));
    const outs = runs.map((r) => JSON.parse(r.out) as { created: boolean; id: number });
    expect(outs.filter((o) => o.created)).toHaveLength(1);
    expect(new Set(outs.map((o) => o.id)).size).toBe(1);
    expect(await f.all(`SELECT agent_state FROM handoffs WHERE contract_id = '${ID}'`)).toEqual([
      { agent_state: 'BLOCKED' },
    ]);
  });

  it('four processes deciding one pending approval at once: exactly one changes it, the others see its decision', async () => {
    const f = await b.fresh();
    const s = await f.writer();
    const a = await s.tx((t) =>
      t.insertApproval({ workspace: 'ws', agent_id: null, contract_id: null, exact_content: 'c' }),
    );
    await s.close();
    const body = `
      const [id, decision] = process.argv.slice(1);
      try {
        const r = await store.tx((t) => t.decideApproval(id, decision, 'racer', null));
        console.log(JSON.stringify({ changed: r.changed, status: r.row.status }));
      } catch (e) {
        console.log(JSON.stringify({ code: e.code }));
      }`;
    const decisions = ['approved', 'rejected', 'approved', 'rejected'];
    const runs = await race(4, body, f.env, (i) => [a.id, decisions[i]]);
    expect(runs.map((r) => [r.code, r.err])).toEqual(runs.map(() => [0, '']));
    const outs = runs.map((r) => JSON.parse(r.out) as { changed?: boolean; status?: string; code?: string });
    const winner = outs.filter((o) => o.changed === true);
    expect(winner).toHaveLength(1);
    const final = winner[0].status;
    for (const [i, o] of outs.entries()) {
      if (o.changed === true) continue;
      if (decisions[i] === final) expect(o).toEqual({ changed: false, status: final });
      else expect(o).toEqual({ code: 'APPROVAL_TRANSITION_REFUSED' });
    }
    expect(await f.all(`SELECT status FROM approvals WHERE id = '${a.id}'`)).toEqual([{ status: final }]);
  });

  it('a lock held past the busy timeout is STORE_BUSY (exit 4) and the work never runs', async () => {
    const f = await b.fresh();
    const s = await f.writer();
    let release: () => Promise<void>;
    if (b.name === 'sqlite') {
      const holder = new (loadSqlite())(String(f.env.HANDOFF_DB));
      holder.exec('BEGIN IMMEDIATE');
      release = () =>
        Promise.resolve().then(() => {
          holder.exec('ROLLBACK');
          holder.close();
        });
    } else {
      const holder = new pg.Client({ connectionString: f.env.HANDOFF_STORE_URL });
      await holder.connect();
      await holder.query('BEGIN');
      // The documented key, computed here as a foreign client would: ASCII "hand", then the first four bytes of the
      // contract id's SHA-256 as a signed big-endian int4.
      const key = createHash('sha256').update(ID, 'utf8').digest().readInt32BE(0);
      await holder.query('SELECT pg_advisory_xact_lock($1::integer, $2::integer)', [0x68616e64, key]);
      release = async () => {
        await holder.query('ROLLBACK');
        await holder.end();
      };
    }
    let ran = false;
    const e = await rejection(
      s.tx(
        async (t) => {
          ran = true;
          await t.upsertFinalRow({
            contract_id: ID,
            agent_id: AGENT,
            workspace: 'ws',
            agent_state: 'BLOCKED',
            json: '{}',
            plan_task_id: null,
          });
        },
        { lock: ID, attempts: 1 },
      ),
    );
    await release();
    expect(e).toMatchObject({ code: 'STORE_BUSY', exit: 4 });
    expect(ran).toBe(false);
    expect(await s.getHandoffByContractId(ID)).toBeUndefined();
    await s.close();
  });
});
