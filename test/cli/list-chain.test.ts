import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { run, snapshot, tempHome } from '../helpers/cli.js';
import {
  dbFile,
  envelopeIn,
  expectCleanFailure,
  insertRow,
  mintAgent,
  mintDraft,
  prefix,
  runJson,
  withStore,
  writeDraft,
} from '../helpers/store-cli.js';

const list = (home: string, ...args: string[]) => runJson(home, ['contract', 'list', ...args]);
const chain = (home: string, ...args: string[]) => runJson(home, ['contract', 'chain', ...args]);

/** A store with rows of known shape, created oldest first. */
function seeded(): { home: string; agentA: string; ids: string[] } {
  const home = tempHome();
  const agentA = mintAgent();
  const ids: string[] = [];
  withStore(home, (db) => {
    const add = (r: Parameters<typeof insertRow>[1]): void => {
      insertRow(db, r);
      ids.push(r.contract_id);
    };
    add({
      contract_id: mintDraft(agentA),
      agent_state: 'COMPLETE',
      workspace: 'w1',
      kind: 'task_execution',
      plan_task_id: 'T-1',
      created_at: '2024-01-01T10:00:00.000Z',
      can_write: ['api'],
      consolidation: 1,
    });
    add({
      contract_id: mintDraft(agentA),
      agent_state: 'DISPATCHED',
      workspace: 'w1',
      kind: 'verifier',
      parent_handoff_id: 1,
      created_at: '2024-01-02T10:00:00.000Z',
      harness_id: 'sess-1',
    });
    add({
      contract_id: mintDraft(),
      agent_state: 'IN_PROGRESS',
      workspace: 'w2',
      kind: 'investigation',
      created_at: '2024-01-02T23:59:59.999Z',
    });
    add({
      contract_id: mintDraft(),
      agent_state: 'BLOCKED',
      workspace: 'w2',
      kind: null,
      created_at: '2024-01-03T00:00:00.000Z',
      require_receipt: 1,
    });
  });
  return { home, agentA, ids };
}

describe('contract list', () => {
  it('no store: an empty result, exit 0, and no file is created', () => {
    const home = tempHome();
    expect(list(home).json).toEqual({ status: 'ok', count: 0, truncated: false, next_cursor: null, handoffs: [] });
    expect(run(home, ['contract', 'list']).stdout).toBe('No handoffs matched.\n');
    expect(existsSync(dbFile(home))).toBe(false);
  });

  it('orders newest first and exposes rows as documented (booleans, parsed *_json, no raw_handoff_json)', () => {
    const { home, ids } = seeded();
    const r = list(home);
    expect(r.json.count).toBe(4);
    expect(r.json.handoffs.map((h: any) => h.contract_id)).toEqual([...ids].reverse());
    const first = r.json.handoffs[3];
    expect(first).toMatchObject({
      consolidation: true,
      require_receipt: false,
      can_write: ['api'],
      acceptance: null,
      plan_task_id: 'T-1',
    });
    expect(first.raw_handoff_json).toBeUndefined();
    expect(first.can_write_json).toBeUndefined();
    expect(first.envelope).toBeUndefined();
    expect(r.json.handoffs[0].require_receipt).toBe(true);
    const withEnv = list(home, '--with-envelope', '--limit', '1');
    expect(withEnv.json.handoffs[0].envelope).toEqual(envelopeIn(prefix(ids[3]), 'IN_PROGRESS'));
  });

  it('applies every filter in SQL before LIMIT', () => {
    const { home, agentA, ids } = seeded();
    const idsOf = (...args: string[]): string[] => list(home, ...args).json.handoffs.map((h: any) => h.contract_id);
    expect(idsOf('--agent-id', agentA)).toEqual([ids[1], ids[0]]);
    expect(idsOf('--agent-id', agentA, '--limit', '1')).toEqual([ids[1]]);
    expect(idsOf('--state', 'complete')).toEqual([ids[0]]);
    expect(idsOf('--contract-id', ids[2])).toEqual([ids[2]]);
    expect(idsOf('--harness-id', 'sess-1')).toEqual([ids[1]]);
    expect(idsOf('--workspace', 'w2')).toEqual([ids[3], ids[2]]);
    expect(idsOf('--kind', 'verifier')).toEqual([ids[1]]);
    expect(idsOf('--plan-task-id', 'T-1')).toEqual([ids[0]]);
    expect(idsOf('--parent-handoff-id', '1')).toEqual([ids[1]]);
    expect(idsOf('--cut')).toEqual([ids[2], ids[1]]);
    expect(idsOf('--cut', '--limit', '1')).toEqual([ids[2]]);
    expect(idsOf('--cut', 'backstop_capture')).toEqual([ids[2]]);
    expect(idsOf('--cut=never_finalized')).toEqual([ids[1]]);
    expect(idsOf('--since', '2024-01-02')).toEqual([ids[3], ids[2], ids[1]]);
    expect(idsOf('--since', '2024-01-02T10:00Z')).toEqual([ids[3], ids[2], ids[1]]);
    expect(idsOf('--until', '2024-01-02')).toEqual([ids[2], ids[1], ids[0]]);
    expect(idsOf('--until', '2024-01-02T10:00')).toEqual([ids[1], ids[0]]);
    expect(idsOf('--since', '2024-01-02T00:00:00.000Z', '--until', '2024-01-02T09:59')).toEqual([]);
    expect(idsOf('--until', '2024-02-29')).toEqual([ids[3], ids[2], ids[1], ids[0]]);
    expect(idsOf('--state', 'NEEDS_INPUT')).toEqual([]);
  });

  it('refuses bad filters with exit 2 and writes nothing', () => {
    const { home } = seeded();
    const before = snapshot(home);
    for (const args of [
      ['--state', 'DONE'],
      ['--agent-id', 'a12'],
      ['--contract-id', 'nope'],
      ['--limit', '0'],
      ['--limit', '1001'],
      ['--limit', '5x'],
      ['--parent-handoff-id', '0'],
      ['--cut', 'other'],
      ['--since', '2024-13-01'],
      ['--until', 'yesterday'],
      ['--limit', '01'],
      ['--limit', '+5'],
      ['--limit', '007'],
      ['--parent-handoff-id', '01'],
      ['--since', '2026-02-30'],
      ['--since', '2025-02-29T10:00Z'],
      ['--until', '2024-04-31'],
      ['--until', '2024-06-00'],
      ['--workspace', ' '],
      ['--plan-task-id', ''],
    ]) {
      const r = list(home, ...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(['USAGE', 'INVALID_AGENT_ID', 'INVALID_DRAFT_ID']).toContain(r.json.code);
    }
    expect(snapshot(home)).toEqual(before);
  });

  it('prints the human table', () => {
    const { home, ids } = seeded();
    const out = run(home, ['contract', 'list']).stdout.split('\n');
    expect(out[0]).toMatch(
      /^id\s+created_at\s+agent_id\s+agent_state\s+cut_reason\s+kind\s+plan_task_id\s+parent_handoff_id\s+contract_id$/,
    );
    expect(out[1]).toContain(ids[3]);
    expect(out[4]).toMatch(/^1\s+2024-01-01T10:00:00.000Z\s+\S+\s+COMPLETE\s+-\s+task_execution\s+T-1\s+-\s+/);
    expect(out[5]).toBe('showing 4');
  });
});

describe('contract chain', () => {
  it('needs exactly one id flag (exit 2); no store or no row is ROW_NOT_FOUND (exit 3) without creating the store', () => {
    const home = tempHome();
    expectCleanFailure(chain(home), 2, 'USAGE');
    expectCleanFailure(chain(home, '--contract-id', mintDraft(), '--draft-id', mintDraft()), 2, 'USAGE');
    expectCleanFailure(chain(home, '--draft-id', 'x'), 2, 'INVALID_DRAFT_ID');
    expectCleanFailure(chain(home, '--contract-id', mintDraft()), 3, 'ROW_NOT_FOUND');
    expect(existsSync(dbFile(home))).toBe(false);
    withStore(home, () => undefined);
    expectCleanFailure(chain(home, '--contract-id', mintDraft()), 3, 'ROW_NOT_FOUND');
  });

  it('shows the whole chain root → tip from any link (built with finalize and add)', () => {
    const home = tempHome();
    const root = mintDraft();
    writeDraft(home, root, envelopeIn(prefix(root), 'BLOCKED'));
    expect(runJson(home, ['contract', 'finalize', '--draft-id', root]).code).toBe(0);
    const link = runJson(home, ['contract', 'add', 'evidence_report.open_gaps', 'x', '--draft-id', root]).json
      .draft_id as string;
    const e = envelopeIn(prefix(root), 'NEEDS_INPUT', { continues_contract_id: root });
    writeDraft(home, link, e);
    expect(runJson(home, ['contract', 'finalize', '--draft-id', link]).code).toBe(0);
    const tip = runJson(home, ['contract', 'set', 'work_phase', 'executing', '--draft-id', root]).json
      .draft_id as string;
    for (const given of [root, link, tip]) {
      const r = chain(home, '--contract-id', given);
      expect(r.json).toMatchObject({ status: 'ok', contract_id: given, live_contract_id: tip, links: 3 });
      expect(r.json.chain.map((c: any) => [c.link, c.contract_id, c.agent_state])).toEqual([
        [1, root, 'BLOCKED'],
        [2, link, 'NEEDS_INPUT'],
        [3, tip, 'DISPATCHED'],
      ]);
      expect(r.json.chain[0].continues_handoff_id).toBeNull();
      expect(r.json.chain[2]).toMatchObject({
        cut_reason: 'never_finalized',
        continues_handoff_id: r.json.chain[1].id,
      });
    }
    const human = run(home, ['contract', 'chain', '--draft-id', link]).stdout;
    expect(human).toMatch(/^link\s+id\s+contract_id\s+agent_state\s+cut_reason\s+created_at\s+continues_handoff_id\n/);
    expect(human.trimEnd().split('\n').pop()).toBe(`3 link(s); the live contract is ${tip}.`);
  });

  it('64 rows are legal; a 65th is CHAIN_TOO_LONG; a loop is CHAIN_BROKEN (exit 4, one line)', () => {
    const home = tempHome();
    const agent = mintAgent();
    const ids: string[] = [];
    withStore(home, (db) => {
      let prev: number | null = null;
      for (let i = 0; i < 65; i++) {
        const id = mintDraft(agent);
        ids.push(id);
        prev = insertRow(db, { contract_id: id, agent_state: 'BLOCKED', continues_handoff_id: prev });
      }
    });
    expectCleanFailure(chain(home, '--contract-id', ids[0]), 4, 'CHAIN_TOO_LONG');
    const fromSecond = chain(home, '--contract-id', ids[64]);
    expectCleanFailure(fromSecond, 4, 'CHAIN_TOO_LONG');
    const human = run(home, ['contract', 'chain', '--contract-id', ids[10]]);
    expect(human.code).toBe(4);
    expect(human.stderr.trimEnd().split('\n')).toHaveLength(1);

    const home2 = tempHome();
    const a = mintDraft(agent);
    const b = mintDraft(agent);
    withStore(home2, (db) => {
      db.pragma('foreign_keys = OFF');
      insertRow(db, { contract_id: a, agent_state: 'BLOCKED', continues_handoff_id: 2 });
      insertRow(db, { contract_id: b, agent_state: 'BLOCKED', continues_handoff_id: 1 });
    });
    expectCleanFailure(chain(home2, '--contract-id', a), 4, 'CHAIN_BROKEN');

    const home3 = tempHome();
    const c64: string[] = [];
    withStore(home3, (db) => {
      let prev: number | null = null;
      for (let i = 0; i < 64; i++) {
        const id = mintDraft(agent);
        c64.push(id);
        prev = insertRow(db, { contract_id: id, agent_state: 'BLOCKED', continues_handoff_id: prev });
      }
    });
    expect(chain(home3, '--contract-id', c64[5]).json).toMatchObject({ links: 64, live_contract_id: c64[63] });
    // Opening a 65th link is refused and writes nothing.
    const add = runJson(home3, ['contract', 'add', 'evidence_report.open_gaps', 'x', '--draft-id', c64[63]]);
    expectCleanFailure(add, 4, 'CHAIN_TOO_LONG');
    expect(withStore(home3, (db) => (db.prepare('SELECT COUNT(*) AS n FROM handoffs').get() as { n: number }).n)).toBe(
      64,
    );
  });
});
