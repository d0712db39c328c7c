/**
 * The repository operations through the Store interface, the same assertions on both backends: the rows each writer
 * makes (birth, claim, capture, finalize, continuation, mirror), chains, list filters and order, briefs and
 * evidence, the gate's counter, and the transaction primitive itself.
 */
import { describe, expect, it } from 'vitest';
import type { HandoffRow } from '../../../src/store/handoffs.js';
import type { Store, StoreTx } from '../../../src/store/store.js';
import { BACKENDS, rejection } from '../../helpers/store-backends.js';

const AGENT = 'a0123456789abcdef';
const cid = (n: number): string => `${AGENT}.${n.toString(16).padStart(12, '0')}`;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

const birth = (
  t: StoreTx,
  n: number,
  extra: Partial<Parameters<StoreTx['insertBirthRow']>[0]> = {},
): Promise<HandoffRow> =>
  t.insertBirthRow({
    contract_id: cid(n),
    agent_id: AGENT,
    workspace: 'ws',
    raw_handoff_json: '{"agent_status":{}}',
    kind: 'task_execution',
    plan_task_id: null,
    parent_handoff_id: null,
    brief_id: null,
    goal: 'g',
    consolidation: false,
    require_receipt: false,
    harness_id: null,
    can_write_json: null,
    acceptance_json: null,
    ...extra,
  });

const finalize = (
  t: StoreTx,
  n: number,
  state: string,
  json: string,
  planTaskId: string | null = null,
): Promise<number | undefined> =>
  t.upsertFinalRow({
    contract_id: cid(n),
    agent_id: AGENT,
    workspace: 'ws',
    agent_state: state,
    json,
    plan_task_id: planTaskId,
  });

/** A closed row continued by n-1 links (each closed but the last): the chain's rows, root first. */
async function chainOf(
  s: Store,
  n: number,
  root: Partial<Parameters<StoreTx['insertBirthRow']>[0]> = {},
): Promise<HandoffRow[]> {
  return s.tx(async (t) => {
    let row = await birth(t, 1, root);
    await finalize(t, 1, 'BLOCKED', '{}');
    row = (await t.getHandoffById(row.id))!;
    const rows = [row];
    for (let i = 2; i <= n; i++) {
      const link = (await t.insertContinuation(row, cid(i), '{}'))!;
      if (i < n) await finalize(t, i, 'BLOCKED', '{}');
      row = (await t.getHandoffById(link.id))!;
      rows.push(row);
    }
    return rows;
  });
}

describe.each(BACKENDS)('$name: handoff rows', (b) => {
  it('birth, claim, capture and finalize write the documented rows, stamped by the store clock', async () => {
    const f = await b.fresh();
    const s = await f.writer();
    const born = await s.tx((t) =>
      birth(t, 1, { consolidation: true, can_write_json: '["api"]', plan_task_id: 'T-1' }),
    );
    expect(born).toMatchObject({
      contract_id: cid(1),
      agent_state: 'DISPATCHED',
      cut_reason: 'never_finalized',
      consolidation: 1,
      require_receipt: 0,
      can_write_json: '["api"]',
      plan_task_id: 'T-1',
      continues_handoff_id: null,
    });
    expect(born.created_at).toMatch(ISO);
    expect(born.updated_at).toBe(born.created_at);
    expect(typeof born.id).toBe('number');

    expect(await s.tx((t) => t.setHarnessIdIfNull(born.id, 'h1'))).toBe(true);
    expect(await s.tx((t) => t.setHarnessIdIfNull(born.id, 'h2'))).toBe(false);
    expect((await s.rowsWithHarnessId('h1')).map((r) => r.id)).toEqual([born.id]);

    expect(await s.tx((t) => t.captureOpenRow({ id: born.id, json: '{"captured":1}', harnessId: 'h3' }))).toBe(true);
    expect(await s.getHandoffById(born.id)).toMatchObject({
      agent_state: 'IN_PROGRESS',
      cut_reason: 'backstop_capture',
      harness_id: 'h1',
    });
    const capture = { contractId: cid(2), agentId: AGENT, workspace: 'ws', json: '{}', harnessId: null };
    expect(await s.tx((t) => t.captureNewRow(capture))).toBe(true);
    expect(await s.tx((t) => t.captureNewRow(capture))).toBe(false);

    const id = await s.tx((t) => finalize(t, 1, 'NEEDS_VERIFICATION', '{"v":1}', 'T-9'));
    expect(id).toBe(born.id);
    const closed = (await s.getHandoffById(born.id))!;
    expect(closed).toMatchObject({
      agent_state: 'NEEDS_VERIFICATION',
      cut_reason: null,
      raw_handoff_json: '{"v":1}',
      plan_task_id: 'T-1',
    });
    expect(closed.created_at).toBe(born.created_at);
    expect(closed.updated_at >= born.updated_at).toBe(true);
    const inserted = await s.tx((t) => finalize(t, 3, 'BLOCKED', '{}', 'T-3'));
    expect(await s.getHandoffById(inserted!)).toMatchObject({
      contract_id: cid(3),
      plan_task_id: 'T-3',
      workspace: 'ws',
      cut_reason: null,
    });
    expect([...(await s.spentProbe([cid(1), cid(2), cid(3), cid(4)]))].sort()).toEqual([
      [cid(1), 'NEEDS_VERIFICATION'],
      [cid(2), 'IN_PROGRESS'],
      [cid(3), 'BLOCKED'],
    ]);
    await s.close();
  });

  it('mirror: mirrored on DISPATCHED and IN_PROGRESS, closed on a closed row, no_row without one; never changes the state', async () => {
    const f = await b.fresh();
    const s = await f.writer();
    await s.tx(async (t) => {
      await birth(t, 1);
      await finalize(t, 2, 'COMPLETE', '{}');
    });
    expect(await s.tx((t) => t.mirrorEnvelope(cid(1), '{"a":1}', 1))).toBe('mirrored');
    expect(await s.tx((t) => t.mirrorEnvelope(cid(2), '{"a":2}', 1))).toBe('closed');
    expect(await s.tx((t) => t.mirrorEnvelope(cid(3), '{"a":3}', 1))).toBe('no_row');
    expect(await s.getHandoffByContractId(cid(1))).toMatchObject({
      raw_handoff_json: '{"a":1}',
      agent_state: 'DISPATCHED',
    });
    expect((await s.getHandoffByContractId(cid(2)))!.raw_handoff_json).toBe('{}');
    await s.close();
  });

  it('mirror order: a copy lands only over an older revision; an older one arriving late changes nothing', async () => {
    const f = await b.fresh();
    const s = await f.writer();
    await s.tx((t) => birth(t, 1));
    const row = async (): Promise<HandoffRow> => (await s.getHandoffByContractId(cid(1)))!;
    expect((await row()).mirror_rev).toBe(0);
    // Revision 2 arrives first, then the slower copy of revision 1: the row keeps revision 2.
    expect(await s.tx((t) => t.mirrorEnvelope(cid(1), '{"rev":2}', 2))).toBe('mirrored');
    const newer = await row();
    expect(await s.tx((t) => t.mirrorEnvelope(cid(1), '{"rev":1}', 1))).toBe('superseded');
    expect(await s.tx((t) => t.mirrorEnvelope(cid(1), '{"again":2}', 2))).toBe('superseded');
    expect(await row()).toEqual(newer);
    expect(newer).toMatchObject({ raw_handoff_json: '{"rev":2}', mirror_rev: 2, agent_state: 'DISPATCHED' });
    // PostgreSQL's one-statement form behaves the same.
    if (s.mirrorNow !== undefined) {
      expect(await s.mirrorNow(cid(1), '{"rev":1}', 1)).toBe('superseded');
      expect(await s.mirrorNow(cid(1), '{"rev":3}', 3)).toBe('mirrored');
      expect((await row()).raw_handoff_json).toBe('{"rev":3}');
    }
    await s.close();
  });

  it('mirror after a close: a revision the finalize read is in the row (superseded); a later one is closed', async () => {
    const f = await b.fresh();
    const s = await f.writer();
    await s.tx(async (t) => {
      await birth(t, 1);
      await birth(t, 2);
      await t.upsertFinalRow({
        contract_id: cid(1),
        agent_id: AGENT,
        workspace: 'ws',
        agent_state: 'BLOCKED',
        json: '{"final":1}',
        plan_task_id: null,
        mirror_rev: 4,
      });
      // A close that knows no revision (the gate's capture, an older build) never lowers the row's.
      await t.upsertFinalRow({
        contract_id: cid(2),
        agent_id: AGENT,
        workspace: 'ws',
        agent_state: 'BLOCKED',
        json: '{"final":2}',
        plan_task_id: null,
      });
    });
    expect((await s.getHandoffByContractId(cid(1)))!.mirror_rev).toBe(4);
    expect(await s.tx((t) => t.mirrorEnvelope(cid(1), '{"late":4}', 4))).toBe('superseded');
    expect(await s.tx((t) => t.mirrorEnvelope(cid(1), '{"late":5}', 5))).toBe('closed');
    expect(await s.tx((t) => t.mirrorEnvelope(cid(2), '{"late":1}', 1))).toBe('closed');
    expect((await s.getHandoffByContractId(cid(1)))!).toMatchObject({
      raw_handoff_json: '{"final":1}',
      agent_state: 'BLOCKED',
      mirror_rev: 4,
    });
    await s.tx((t) =>
      t.upsertFinalRow({
        contract_id: cid(1),
        agent_id: AGENT,
        workspace: 'ws',
        agent_state: 'BLOCKED',
        json: '{"final":3}',
        plan_task_id: null,
        mirror_rev: 2,
      }),
    );
    expect((await s.getHandoffByContractId(cid(1)))!).toMatchObject({ raw_handoff_json: '{"final":3}', mirror_rev: 4 });
    await s.close();
  });

  it('chains: follow, walk back, the whole chain, the inherited binding; a link inherits the parent bindings', async () => {
    const f = await b.fresh();
    const s = await f.writer();
    const [a, l2, l3] = await chainOf(s, 3, {
      plan_task_id: 'T-1',
      harness_id: 'h',
      require_receipt: true,
      goal: 'goal',
    });
    expect(l2).toMatchObject({
      continues_handoff_id: a.id,
      plan_task_id: 'T-1',
      harness_id: 'h',
      require_receipt: 1,
      goal: 'goal',
      agent_state: 'BLOCKED',
    });
    expect((await s.followChain(a)).map((r) => r.id)).toEqual([a.id, l2.id, l3.id]);
    expect((await s.followChain(l3)).map((r) => r.id)).toEqual([l3.id]);
    expect((await s.walkBack(l3)).map((r) => r.id)).toEqual([l3.id, l2.id, a.id]);
    expect((await s.wholeChain(l2)).map((r) => r.id)).toEqual([a.id, l2.id, l3.id]);
    expect(await s.chainContractIds(l3)).toEqual([cid(1), cid(2), cid(3)]);
    expect(await s.planTaskBinding(l3)).toBe('T-1');
    // A row and its links in one statement (a writer's read under the draft lock): the same rows, on both backends.
    expect((await s.chainOfContract!(cid(1)))?.map((r) => r.id)).toEqual([a.id, l2.id, l3.id]);
    expect((await s.chainOfContract!(cid(3)))?.map((r) => r.id)).toEqual([l3.id]);
    expect(await s.chainOfContract!(cid(99))).toBeUndefined();
    await s.close();
  });

  it('64 rows are legal; the 65th link is CHAIN_TOO_LONG and nothing is inserted; a loop is CHAIN_BROKEN', async () => {
    const f = await b.fresh();
    const s = await f.writer();
    const rows = await chainOf(s, 64);
    const tip = rows[63];
    expect(await s.followChain(rows[0])).toHaveLength(64);
    expect(await s.chainOfContract!(cid(1))).toHaveLength(64);
    expect(await s.walkBack(tip)).toHaveLength(64);
    await s.tx((t) => finalize(t, 64, 'BLOCKED', '{}'));
    const closedTip = (await s.getHandoffById(tip.id))!;
    expect(await rejection(s.tx((t) => t.insertContinuation(closedTip, cid(65), '{}')))).toMatchObject({
      code: 'CHAIN_TOO_LONG',
      exit: 4,
    });
    expect(await s.getHandoffByContractId(cid(65))).toBeUndefined();
    await s.close();

    const g = await b.fresh();
    const loop = await g.writer();
    // A loop only a hand-edited store can hold: written with the schema's triggers and keys switched off.
    const off = b.name === 'sqlite' ? 'PRAGMA foreign_keys = OFF;' : 'ALTER TABLE handoffs DISABLE TRIGGER ALL;';
    const values = [
      [1, 2],
      [2, 1],
      [3, 99],
    ].map(([id, continues]) => `(${id}, '${cid(id)}', '${AGENT}', 'ws', 'BLOCKED', '{}', ${continues})`);
    await g.exec(`${off} INSERT INTO handoffs (id, contract_id, agent_id, workspace, agent_state, raw_handoff_json, continues_handoff_id)
                  VALUES ${values.join(', ')};`);
    const one = (await loop.getHandoffByContractId(cid(1)))!;
    expect(await rejection(loop.followChain(one))).toMatchObject({ code: 'CHAIN_BROKEN', exit: 4 });
    expect(await rejection(loop.walkBack(one))).toMatchObject({ code: 'CHAIN_BROKEN', exit: 4 });
    const dangling = (await loop.getHandoffByContractId(cid(3)))!;
    expect(await rejection(loop.walkBack(dangling))).toMatchObject({ code: 'CHAIN_BROKEN', exit: 4 });
    expect(await loop.followChain(dangling)).toEqual([dangling]);
    expect(await rejection(loop.chainOfContract!(cid(1)))).toMatchObject({ code: 'CHAIN_BROKEN', exit: 4 });
    await loop.close();
  });

  it('list: every filter before LIMIT, newest first (created_at DESC, id DESC), text bounds as SQLite compares them', async () => {
    const f = await b.fresh();
    const s = await f.writer();
    // Raw rows: created_at is frozen, so the times a test needs are written at insert.
    const row = (n: number, at: string, cols: string, values: string): Promise<void> =>
      f.exec(`INSERT INTO handoffs (contract_id, agent_id, workspace, raw_handoff_json, created_at, ${cols})
              VALUES ('${cid(n)}', '${AGENT}', 'ws', '{}', '${at}', ${values})`);
    await row(
      1,
      '2024-01-01T10:00:00.000Z',
      'agent_state, cut_reason, kind, harness_id',
      "'DISPATCHED', 'never_finalized', 'verifier', 'h1'",
    );
    await row(
      2,
      '2024-01-02T10:00:00.000Z',
      'agent_state, cut_reason, plan_task_id',
      "'DISPATCHED', 'never_finalized', 'T-2'",
    );
    await row(3, '2024-01-02T10:00:00.000Z', 'agent_state, cut_reason', "'COMPLETE', NULL");
    const ids = async (filters: Partial<Parameters<Store['listHandoffs']>[0]>): Promise<string[]> =>
      (await s.listHandoffs({ limit: 20, ...filters })).map((r) => r.contract_id);
    expect(await ids({})).toEqual([cid(3), cid(2), cid(1)]);
    expect(await ids({ limit: 1 })).toEqual([cid(3)]);
    expect(await ids({ kind: 'verifier' })).toEqual([cid(1)]);
    expect(await ids({ harness_id: 'h1' })).toEqual([cid(1)]);
    expect(await ids({ plan_task_id: 'T-2' })).toEqual([cid(2)]);
    expect(await ids({ agent_state: 'COMPLETE' })).toEqual([cid(3)]);
    expect(await ids({ cut: true })).toEqual([cid(2), cid(1)]);
    expect(await ids({ cut: 'backstop_capture' })).toEqual([]);
    expect(await ids({ since: '2024-01-02' })).toEqual([cid(3), cid(2)]);
    expect(await ids({ until: '2024-01-01' })).toEqual([cid(1)]);
    expect(await ids({ until: '2024-01-02T10' })).toEqual([cid(3), cid(2), cid(1)]);
    expect(await ids({ agent_id: AGENT, workspace: 'ws', contract_id: cid(2) })).toEqual([cid(2)]);
    expect(await ids({ parent_handoff_id: 1 })).toEqual([]);
    // A keyset page: after (created_at, id) of row 3, a tie in created_at is ordered by id; counts ignore the page.
    const three = (await s.listHandoffs({ limit: 1 }))[0];
    expect(await ids({ after: { created_at: three.created_at, id: three.id } })).toEqual([cid(2), cid(1)]);
    expect(await ids({ after: { created_at: three.created_at, id: three.id }, since: '2024-01-02' })).toEqual([cid(2)]);
    expect(await s.countHandoffs({ limit: 1 })).toBe(3);
    expect(await s.countHandoffs({ limit: 1, cut: true, after: { created_at: '2000-01-01', id: 0 } })).toBe(2);
    await s.close();
  });
});

describe.each(BACKENDS)('$name: briefs, evidence, approvals list, the gate counter', (b) => {
  it('briefs with criteria and evidence: counts, orders, lookups, the handoff evidence set replaced', async () => {
    const f = await b.fresh();
    const s = await f.writer();
    const { brief, handoffId } = await s.tx(async (t) => {
      const brief = await t.insertBrief({ workspace: 'ws', name: 'beta', title: 'B', objective: null });
      await t.insertBrief({ workspace: 'ws', name: 'Alpha', title: null, objective: 'o' });
      expect(
        await t.appendAcs(brief.id, [
          { ac_id: 'AC-1', description: 'one' },
          { ac_id: 'AC-2', description: 'two' },
        ]),
      ).toEqual([
        { ac_id: 'AC-1', description: 'one', position: 1 },
        { ac_id: 'AC-2', description: 'two', position: 2 },
      ]);
      expect(await t.appendAcs(brief.id, [{ ac_id: 'AC-3', description: 'three' }])).toEqual([
        { ac_id: 'AC-3', description: 'three', position: 3 },
      ]);
      const handoffId = (await finalize(t, 1, 'BLOCKED', '{}'))!;
      return { brief, handoffId };
    });
    expect(brief).toMatchObject({ workspace: 'ws', name: 'beta', title: 'B', objective: null });
    expect(brief.created_at).toMatch(ISO);
    const row = {
      brief_id: brief.id,
      task_id: null,
      type: 'text' as const,
      artifact_path: null,
      size_bytes: 1,
      sha256: 'a'.repeat(64),
      created_by_agent: AGENT,
    };
    const ids = await s.tx(async (t) => [
      await t.insertEvidence({ ...row, ac_id: 'AC-2', text: 'x', handoff_id: handoffId }),
      await t.insertEvidence({ ...row, ac_id: 'AC-1', text: 'y', handoff_id: null }),
      await t.insertEvidence({
        ...row,
        ac_id: 'AC-9',
        text: null,
        artifact_path: '/e/blob.bin',
        handoff_id: handoffId,
      }),
    ]);
    expect(await s.getEvidence(ids[0])).toMatchObject({
      id: ids[0],
      brief: 'beta',
      ac_id: 'AC-2',
      text: 'x',
      receipt_id: null,
      size_bytes: 1,
    });
    expect((await s.listEvidence({ briefId: brief.id })).map((e) => e.ac_id)).toEqual(['AC-1', 'AC-2', 'AC-9']);
    expect((await s.listEvidence({ briefId: brief.id, acId: 'AC-2' })).map((e) => e.id)).toEqual([ids[0]]);
    expect([...(await s.evidenceCountsByAc(brief.id))]).toEqual([
      ['AC-1', 1],
      ['AC-2', 1],
      ['AC-9', 1],
    ]);
    expect(await s.listBriefs('ws')).toMatchObject([
      { name: 'Alpha', ac_count: 0, evidence_count: 0 },
      { name: 'beta', ac_count: 3, evidence_count: 3 },
    ]);
    expect(await s.countEvidence()).toBe(3);
    expect([...(await s.referencedPaths())]).toEqual(['/e/blob.bin']);
    expect(await s.blobRows()).toEqual([{ id: ids[2], artifact_path: '/e/blob.bin' }]);
    expect(await s.tx((t) => t.deleteEvidenceOfHandoff(handoffId))).toBe(2);
    expect(await s.countEvidence()).toBe(1);
    expect(await s.findBriefById(brief.id)).toEqual(brief);
    await s.close();
  });

  it('approvals are listed newest first with exact filters; the gate counter is put, read and reset', async () => {
    const f = await b.fresh();
    const s = await f.writer();
    const approval = (id: string, at: string, contract: string): Promise<void> =>
      f.exec(`INSERT INTO approvals (id, workspace, contract_id, exact_content, fingerprint, created_at)
              VALUES ('${id}', 'ws', ${contract}, 'c', 'f', '${at}')`);
    const a1 = { id: `P-${'1'.repeat(32)}` };
    const a2 = { id: `P-${'0'.repeat(32)}` };
    await approval(a1.id, '2024-01-01T00:00:00.000Z', `'${cid(1)}'`);
    await approval(a2.id, '2024-01-02T00:00:00.000Z', 'NULL');
    expect((await s.listApprovals({ limit: 20 })).map((a) => a.id)).toEqual([a2.id, a1.id]);
    expect((await s.listApprovals({ limit: 20, contract_id: cid(1), status: 'pending' })).map((a) => a.id)).toEqual([
      a1.id,
    ]);
    expect(await s.listApprovals({ limit: 20, status: 'approved' })).toEqual([]);
    const after = { created_at: '2024-01-02T00:00:00.000Z', id: a2.id };
    expect((await s.listApprovals({ limit: 20, after })).map((a) => a.id)).toEqual([a1.id]);
    expect(await s.countApprovals({ limit: 1 })).toBe(2);
    expect(await s.countApprovals({ limit: 20, status: 'approved' })).toBe(0);

    await s.tx((t) => t.putRejection({ key: 'k', attempts: 1, tripped: false, codes: ['A'], contractId: cid(1) }));
    await s.tx((t) => t.putRejection({ key: 'k', attempts: 2, tripped: true, codes: ['A', 'B'], contractId: null }));
    const r = (await s.getRejection('k'))!;
    expect(r).toMatchObject({ key: 'k', attempts: 2, tripped: 1, last_codes_json: '["A","B"]', contract_id: null });
    expect(r.updated_at).toMatch(ISO);
    expect(await s.tx((t) => t.deleteRejection('k'))).toBe(1);
    expect(await s.getRejection('k')).toBeUndefined();
    await s.close();
  });
});

describe.each(BACKENDS)('$name: the transaction primitive', (b) => {
  it('a function that throws rolls back everything it wrote; the error comes out unchanged', async () => {
    const f = await b.fresh();
    const s = await f.writer();
    const boom = new Error('boom');
    const e = await rejection(
      s.tx(async (t) => {
        await birth(t, 1);
        await t.insertApproval({ workspace: 'ws', agent_id: null, contract_id: null, exact_content: 'c' });
        throw boom;
      }),
    );
    expect(e).toBe(boom);
    expect(await s.getHandoffByContractId(cid(1))).toBeUndefined();
    expect(await s.listApprovals({ limit: 20 })).toEqual([]);
    await s.close();
  });

  it('a handle used after its transaction ended is refused (INTERNAL) and writes nothing', async () => {
    const f = await b.fresh();
    const s = await f.writer();
    let leaked: StoreTx | undefined;
    await s.tx(async (t) => {
      leaked = t;
      await t.lockContract(cid(1));
      return Promise.resolve();
    });
    expect(await rejection(birth(leaked!, 1))).toMatchObject({ code: 'INTERNAL', exit: 70 });
    expect(await s.getHandoffByContractId(cid(1))).toBeUndefined();
    await s.close();
  });

  it('transactions on one store run one after the other, each seeing the previous one committed', async () => {
    const f = await b.fresh();
    const s = await f.writer();
    await s.tx((t) => t.putRejection({ key: 'n', attempts: 1, tripped: false, codes: [], contractId: null }));
    const bump = (): Promise<void> =>
      s.tx(
        async (t) => {
          const cur = (await t.getRejection('n'))!;
          await t.putRejection({ key: 'n', attempts: cur.attempts + 1, tripped: false, codes: [], contractId: null });
        },
        { lock: 'counter' },
      );
    await Promise.all([bump(), bump(), bump(), bump(), bump()]);
    expect((await s.getRejection('n'))!.attempts).toBe(6);
    await s.close();
  });

  it('the store clock reads UTC ISO-8601 with milliseconds, inside and outside a transaction', async () => {
    const f = await b.fresh();
    const s = await f.writer();
    expect(await s.now()).toMatch(ISO);
    expect(await s.tx((t) => t.now())).toMatch(ISO);
    expect(await s.acceptsJson('{"a":[1,2,{"b":null}]}')).toBe(true);
    expect(await s.acceptsJson('{"a":')).toBe(false);
    await s.close();
  });
});

describe.each(BACKENDS)('$name: the reads and writes the services added (phase 2)', (b) => {
  it('workspacesWithBrief names every workspace holding that exact name, in byte order', async () => {
    const f = await b.fresh();
    const s = await f.writer();
    await s.tx(async (t) => {
      for (const ws of ['zeta', 'Alpha', 'beta'])
        await t.insertBrief({ workspace: ws, name: 'api', title: null, objective: null });
      await t.insertBrief({ workspace: 'gamma', name: 'API', title: null, objective: null });
    });
    expect(await s.workspacesWithBrief('api')).toEqual(['Alpha', 'beta', 'zeta']);
    expect(await s.workspacesWithBrief('none')).toEqual([]);
    await s.close();
  });

  it('markGateSeen stamps gate_seen_at with the store clock and leaves updated_at alone; false without a row', async () => {
    const f = await b.fresh();
    const s = await f.writer();
    const born = await s.tx((t) => birth(t, 1));
    expect(await s.tx((t) => t.markGateSeen(cid(1)))).toBe(true);
    expect(await s.tx((t) => t.markGateSeen(cid(2)))).toBe(false);
    const row = (await s.getHandoffByContractId(cid(1)))!;
    expect(row.gate_seen_at).toMatch(ISO);
    expect(row.updated_at).toBe(born.updated_at);
    await s.close();
  });
});
