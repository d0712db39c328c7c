/**
 * Several hosts, one PostgreSQL store: two data roots (two HANDOFF_HOME folders, as two
 * machines) share one database. A contract dispatched on host A is worked, finalized and gated on host B, which has
 * no draft of it and re-creates it from the row (adoption); host A then sees the result through `list` and `chain`.
 * Racing finalizes from several roots give one row and exactly one `created: true`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPLETE_PATCH } from '../helpers/gate.js';
import { fill, noSqliteFile, hostOk, pgCount, pgHost, pgRow, type PgHost } from '../helpers/pg-cli.js';
import { dropDatabase, freshDatabase, freshSchema } from '../helpers/pg.js';

let dbUrl: string;
beforeAll(async () => {
  dbUrl = await freshDatabase();
});
afterAll(async () => {
  await dropDatabase(dbUrl);
});

const WS = ['--workspace', 'fleet'];

describe('two hosts sharing one PostgreSQL store', () => {
  it('dispatch on A; writes, finalize and the gate on B (adopting the draft from the row); list and chain on A', async () => {
    const url = await freshSchema(dbUrl);
    const a = pgHost(url, 'handoff-host-a-');
    const b = pgHost(url, 'handoff-host-b-');

    // Host A: dispatch. The row lives on the server; the draft only on A.
    const d = hostOk(a, ['contract', 'dispatch', ...WS, '--goal', 'ship the fleet feature']);
    const id = d.contract_id as string;
    expect((await pgRow(url, id)).agent_state).toBe('DISPATCHED');
    expect(a.drafts()).toEqual([id]);
    expect(b.drafts()).toEqual([]);

    // Host B: the first write finds no local draft, re-creates it from the open row ([ADOPTED]) and mirrors it back.
    const set = hostOk(b, ['contract', 'set', 'work_phase', 'executing', '--draft-id', id]);
    expect(set).toMatchObject({ draft_id: id, adopted: true, mirrored: true });
    expect(b.drafts()).toEqual([id]);
    const mirrored = await pgRow(url, id);
    expect(JSON.parse(mirrored.raw_handoff_json).work_phase).toBe('executing');
    expect(mirrored.workspace).toBe('fleet');

    fill(b, id, COMPLETE_PATCH);
    hostOk(b, ['contract', 'set', 'agent_status.agent_state', 'COMPLETE', '--draft-id', id]);
    const fin = hostOk(b, ['contract', 'finalize', '--draft-id', id]);
    expect(fin).toMatchObject({
      created: true,
      draft_id: id,
      handoff_id: d.handoff_id,
      agent_state: 'COMPLETE',
      workspace: 'fleet',
    });
    const closed = await pgRow(url, id);
    expect(closed.agent_state).toBe('COMPLETE');
    expect(closed.finalized_at).not.toBeNull();

    // Host B: the stop gate allows the finalized, valid contract and records that it saw the stop.
    const gate = b.run(['contract', 'gate', '--draft-id', id, '--json']);
    expect(gate.code, gate.stdout + gate.stderr).toBe(0);
    expect(gate.json).toMatchObject({
      decision: 'allow',
      contract_id: id,
      handoff_id: d.handoff_id,
      agent_state: 'COMPLETE',
    });
    expect((await pgRow(url, id)).gate_seen_at).not.toBeNull();

    // Evidence and receipts across hosts (evidence add/run on B, `evidence show --verify` on A) join here.

    // Host A: list and chain see B's finalize; A still has its own (now spent) draft, B's is separate.
    const list = hostOk(a, ['contract', 'list', '--agent-id', d.agent_id]);
    expect(list.count).toBe(1);
    expect(list.handoffs[0]).toMatchObject({ contract_id: id, agent_state: 'COMPLETE', id: d.handoff_id });
    const chain = hostOk(a, ['contract', 'chain', '--contract-id', id]);
    expect(chain).toMatchObject({ contract_id: id, live_contract_id: id, links: 1 });

    // A repeat finalize on B changes nothing (write-once COMPLETE); one row in the store, no SQLite file anywhere.
    expect(hostOk(b, ['contract', 'finalize', '--draft-id', id])).toMatchObject({
      created: false,
      unchanged_reason: 'complete_write_once',
    });
    expect(await pgCount(url, 'handoffs')).toBe(1);
    expect(noSqliteFile(a) && noSqliteFile(b)).toBe(true);
  });

  it('a closed contract written on B opens its continuation in the store; A follows the chain to it', async () => {
    const url = await freshSchema(dbUrl);
    const a = pgHost(url, 'handoff-host-a-');
    const b = pgHost(url, 'handoff-host-b-');
    const d = hostOk(a, ['contract', 'dispatch', ...WS, '--goal', 'g']);
    const id = d.contract_id as string;
    hostOk(b, ['contract', 'set', 'agent_status.agent_state', 'BLOCKED', '--draft-id', id]);
    const fin = b.run(['contract', 'finalize', '--draft-id', id, '--json']);
    expect(fin.code, fin.stdout + fin.stderr).toBe(0);
    expect(fin.json.created).toBe(true);

    // A write on A (its draft of the closed contract is spent) opens the continuation link on the server.
    const w = hostOk(a, ['contract', 'set', 'work_phase', 'executing', '--draft-id', id]);
    const next = w.draft_id as string;
    expect(next).not.toBe(id);
    const link = await pgRow(url, next);
    expect(link).toMatchObject({ agent_state: 'DISPATCHED', continues_handoff_id: d.handoff_id, workspace: 'fleet' });
    const chain = hostOk(b, ['contract', 'chain', '--contract-id', id]);
    expect(chain).toMatchObject({ live_contract_id: next, links: 2 });
  });
});

describe('racing finalizes from several data roots', () => {
  it('8 processes from 4 roots finalize one contract: one row, exactly one created:true, all exit 0', async () => {
    const url = await freshSchema(dbUrl);
    const origin = pgHost(url, 'handoff-race-origin-');
    const d = hostOk(origin, ['contract', 'dispatch', ...WS, '--goal', 'race']);
    const id = d.contract_id as string;
    const roots: PgHost[] = [origin, pgHost(url), pgHost(url), pgHost(url)];
    // Every root holds the same closing envelope (the others adopt theirs from the row, then write the same values).
    for (const h of roots) {
      fill(h, id, COMPLETE_PATCH);
      hostOk(h, ['contract', 'set', 'agent_status.agent_state', 'COMPLETE', '--draft-id', id]);
    }
    const results = await Promise.all(
      roots.flatMap((h) => [h, h]).map((h) => h.runAsync(['contract', 'finalize', '--draft-id', id, '--json'])),
    );
    for (const r of results) expect(r.code, r.stdout + r.stderr).toBe(0);
    const outs = results.map((r) => JSON.parse(r.stdout));
    expect(outs.filter((o) => o.created === true)).toHaveLength(1);
    expect(new Set(outs.map((o) => o.handoff_id))).toEqual(new Set([d.handoff_id]));
    expect(await pgCount(url, 'handoffs')).toBe(1);
    expect((await pgRow(url, id)).agent_state).toBe('COMPLETE');
  });
});
