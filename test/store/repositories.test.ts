import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closeDb, openProbe, openWriter, writeTx, type Db } from '../../src/store/db.js';
import type { HandoffRow } from '../../src/store/handoffs.js';
import {
  approvalLookup,
  chainRoot,
  decideApproval,
  followChain,
  getHandoffByContractId,
  insertApproval,
  insertContinuation,
  mirrorEnvelope,
  planTaskBinding,
  spentProbe,
  walkBack,
  wholeChain,
} from '../../src/store/sqlite-rows.js';
import { loadSqlite } from '../../src/store/sqlite.js';
import { openSqlite } from '../../src/store/sqlite-store.js';
import { buildAt, caught, tempStore } from '../helpers/store.js';

/** The version of every SQLite migration the repository ships (NNNN_name.sql). */
const migrationVersions = readdirSync(join(import.meta.dirname, '..', '..', 'migrations'))
  .filter((f) => /^\d{4}_.*\.sql$/.test(f))
  .map((f) => Number(f.slice(0, 4)))
  .sort((a, b) => a - b);

const REPO = join(import.meta.dirname, '..', '..');
const AGENT = 'a0123456789abcdef';
const cid = (n: number): string => `${AGENT}.${n.toString(16).padStart(12, '0')}`;

function store(): { db: Db; env: NodeJS.ProcessEnv; file: string } {
  const s = tempStore();
  return { db: openWriter(s.env, undefined, { create: true })!, env: s.env, file: s.file };
}

function row(db: Db, n: number, cols: Record<string, unknown> = {}): HandoffRow {
  const r = {
    contract_id: cid(n),
    agent_id: AGENT,
    workspace: 'ws',
    agent_state: 'BLOCKED',
    cut_reason: null,
    raw_handoff_json: '{}',
    ...cols,
  };
  const keys = Object.keys(r);
  db.prepare(`INSERT INTO handoffs (${keys.join(', ')}) VALUES (${keys.map((k) => `@${k}`).join(', ')})`).run(r);
  return getHandoffByContractId(db, cid(n))!;
}

describe('chains', () => {
  it('followChain / walkBack / wholeChain from any link; planTaskBinding falls back to ancestors', () => {
    const { db } = store();
    const a = row(db, 1, { plan_task_id: 'T-1' });
    const b = row(db, 2, { continues_handoff_id: a.id });
    const c = row(db, 3, { continues_handoff_id: b.id, agent_state: 'DISPATCHED', cut_reason: 'never_finalized' });
    expect(followChain(db, a).map((r) => r.id)).toEqual([a.id, b.id, c.id]);
    expect(followChain(db, c).map((r) => r.id)).toEqual([c.id]);
    expect(walkBack(db, c).map((r) => r.id)).toEqual([c.id, b.id, a.id]);
    expect(chainRoot(db, b).id).toBe(a.id);
    expect(wholeChain(db, b).map((r) => r.id)).toEqual([a.id, b.id, c.id]);
    expect(planTaskBinding(db, c)).toBe('T-1');
    closeDb(db);
  });

  it('insertContinuation inherits the bindings, starts DISPATCHED/never_finalized, and loses to an existing link', () => {
    const { db } = store();
    const bindings = {
      kind: 'task_execution',
      plan_task_id: 'T-9',
      harness_id: 'h',
      goal: 'g',
      consolidation: 1,
      require_receipt: 1,
      can_write_json: '["api"]',
      acceptance_json: '[]',
    };
    const parent = row(db, 1, { agent_state: 'COMPLETE', ...bindings });
    const link = insertContinuation(db, parent, cid(2), '{"continues_contract_id":"x"}')!;
    expect(link).toMatchObject({
      contract_id: cid(2),
      agent_id: AGENT,
      workspace: 'ws',
      agent_state: 'DISPATCHED',
      cut_reason: 'never_finalized',
      continues_handoff_id: parent.id,
      ...bindings,
      raw_handoff_json: '{"continues_contract_id":"x"}',
    });
    expect(insertContinuation(db, parent, cid(3), '{}')).toBeUndefined();
    expect(getHandoffByContractId(db, cid(3))).toBeUndefined();
    closeDb(db);
  });

  it('64 rows are legal; the 65th link is CHAIN_TOO_LONG; a loop is CHAIN_BROKEN', () => {
    const { db } = store();
    let prev = row(db, 1);
    for (let n = 2; n <= 64; n++) prev = row(db, n, { continues_handoff_id: prev.id });
    const root = getHandoffByContractId(db, cid(1))!;
    expect(followChain(db, root)).toHaveLength(64);
    expect(caught(() => insertContinuation(db, prev, cid(65), '{}'))).toMatchObject({
      code: 'CHAIN_TOO_LONG',
      exit: 4,
    });
    expect(getHandoffByContractId(db, cid(65))).toBeUndefined();
    row(db, 65, { continues_handoff_id: prev.id });
    expect(caught(() => followChain(db, root))).toMatchObject({ code: 'CHAIN_TOO_LONG', exit: 4 });
    closeDb(db);

    const s = store();
    s.db.pragma('foreign_keys = OFF');
    row(s.db, 1, { continues_handoff_id: 2 });
    row(s.db, 2, { continues_handoff_id: 1 });
    const one = getHandoffByContractId(s.db, cid(1))!;
    expect(caught(() => followChain(s.db, one))).toMatchObject({ code: 'CHAIN_BROKEN', exit: 4 });
    expect(caught(() => walkBack(s.db, one))).toMatchObject({ code: 'CHAIN_BROKEN', exit: 4 });
    closeDb(s.db);
  });
});

describe('mirror, spent probe, approval lookup', () => {
  it('mirrorEnvelope: mirrored on DISPATCHED/IN_PROGRESS, closed on a closed row, no_row otherwise; never changes state', () => {
    const { db } = store();
    row(db, 1, { agent_state: 'DISPATCHED', cut_reason: 'never_finalized' });
    row(db, 2, { agent_state: 'IN_PROGRESS', cut_reason: 'backstop_capture' });
    row(db, 3, { agent_state: 'COMPLETE' });
    expect(mirrorEnvelope(db, cid(1), '{"a":1}', 1)).toBe('mirrored');
    expect(mirrorEnvelope(db, cid(2), '{"a":2}', 1)).toBe('mirrored');
    expect(mirrorEnvelope(db, cid(3), '{"a":3}', 1)).toBe('closed');
    expect(mirrorEnvelope(db, cid(4), '{"a":4}', 1)).toBe('no_row');
    expect(getHandoffByContractId(db, cid(1))).toMatchObject({
      raw_handoff_json: '{"a":1}',
      agent_state: 'DISPATCHED',
      cut_reason: 'never_finalized',
    });
    expect(getHandoffByContractId(db, cid(3))!.raw_handoff_json).toBe('{}');
    closeDb(db);
  });

  it('mirrorEnvelope of a revision the row already holds (or passed) answers superseded without the write lock', () => {
    const { db, file } = store();
    row(db, 1, { agent_state: 'DISPATCHED', cut_reason: 'never_finalized' });
    expect(mirrorEnvelope(db, cid(1), '{"rev":2}', 2)).toBe('mirrored');
    // Another connection holds the file's one write lock: a copy that must write would wait for it (busy).
    const blocker = new (loadSqlite())(file);
    blocker.exec('BEGIN IMMEDIATE');
    try {
      expect(mirrorEnvelope(db, cid(1), '{"rev":1}', 1)).toBe('superseded');
      expect(mirrorEnvelope(db, cid(1), '{"rev":2}', 2)).toBe('superseded');
    } finally {
      blocker.exec('ROLLBACK');
      blocker.close();
    }
    expect(getHandoffByContractId(db, cid(1))).toMatchObject({ raw_handoff_json: '{"rev":2}', mirror_rev: 2 });
    closeDb(db);
  }, 60_000);

  it('mirrorEnvelope commits at synchronous = NORMAL (the draft is fsynced already) and gives the connection its level back', () => {
    const { db } = store();
    row(db, 1, { agent_state: 'DISPATCHED', cut_reason: 'never_finalized' });
    expect(db.pragma('synchronous', { simple: true })).toBe(2); // FULL, the store's level
    const seen: string[] = [];
    const pragma = db.pragma.bind(db);
    const prepare = db.prepare.bind(db);
    db.pragma = (source: string, options?: { simple?: boolean }) => {
      seen.push(`pragma ${source}`);
      return pragma(source, options);
    };
    db.prepare = (source: string) => {
      if (/^\s*UPDATE handoffs/.test(source))
        seen.push(`level during the UPDATE: ${String(pragma('synchronous', { simple: true }))}`);
      return prepare(source);
    };
    expect(mirrorEnvelope(db, cid(1), '{"a":1}', 1)).toBe('mirrored');
    expect(seen).toContain('level during the UPDATE: 1');
    expect(pragma('synchronous', { simple: true })).toBe(2);
    // Inside a caller's transaction the commit is the caller's: the level is left alone.
    seen.length = 0;
    writeTx(db, () => expect(mirrorEnvelope(db, cid(1), '{"a":2}', 2)).toBe('mirrored'));
    expect(seen.filter((x) => x.startsWith('pragma synchronous ='))).toEqual([]);
    expect(seen).toContain('level during the UPDATE: 2');
    closeDb(db);
  });

  it("the store's mirrorNow runs mirrorEnvelope outside a transaction of its own: a held revision is answered while another connection holds the write lock", async () => {
    const { db, env, file } = store();
    row(db, 1, { agent_state: 'DISPATCHED', cut_reason: 'never_finalized' });
    closeDb(db);
    const writer = openSqlite(env, undefined, 'writer', { waitUntil: performance.now() + 200 })!;
    const reader = openSqlite(env, undefined, 'probe')!;
    try {
      expect(await writer.mirrorNow(cid(1), '{"rev":2}', 2)).toBe('mirrored');
      await expect(reader.mirrorNow(cid(1), '{"rev":3}', 3)).rejects.toMatchObject({ code: 'INTERNAL' });
      const blocker = new (loadSqlite())(file);
      blocker.exec('BEGIN IMMEDIATE');
      try {
        // Through `tx` (BEGIN IMMEDIATE first) this waited out the busy timeout and was STORE_BUSY.
        expect(await writer.mirrorNow(cid(1), '{"rev":1}', 1)).toBe('superseded');
      } finally {
        blocker.exec('ROLLBACK');
        blocker.close();
      }
      expect(await writer.mirrorNow(cid(2), '{}', 1)).toBe('no_row');
      expect(await writer.getHandoffByContractId(cid(1))).toMatchObject({
        raw_handoff_json: '{"rev":2}',
        mirror_rev: 2,
      });
    } finally {
      await writer.close();
      await reader.close();
    }
  }, 60_000);

  it('spentProbe maps the ids that have rows to their state', () => {
    const { db } = store();
    row(db, 1, { agent_state: 'COMPLETE' });
    row(db, 2, { agent_state: 'DISPATCHED', cut_reason: 'never_finalized' });
    expect([...spentProbe(db, [cid(1), cid(2), cid(3)])]).toEqual(
      expect.arrayContaining([
        [cid(1), 'COMPLETE'],
        [cid(2), 'DISPATCHED'],
      ]),
    );
    expect(spentProbe(db, []).size).toBe(0);
    closeDb(db);
  });

  it('approvalLookup: pending, decided, unknown; a store without the table resolves nothing', () => {
    const { db } = store();
    const a = insertApproval(db, { workspace: 'ws', agent_id: null, contract_id: null, exact_content: 'c' });
    const lookup = approvalLookup(db);
    const none = { agentId: null, usedByHandoffId: null, usedByContractId: null };
    expect(lookup(a.id)).toEqual({
      found: true,
      status: 'pending',
      contractId: null,
      fingerprint: a.fingerprint,
      decidedAt: null,
      ...none,
    });
    const decided = decideApproval(db, a.id, 'rejected', null, null);
    expect(lookup(a.id)).toEqual({
      found: true,
      status: 'rejected',
      contractId: null,
      fingerprint: a.fingerprint,
      decidedAt: decided.row.decided_at,
      ...none,
    });
    expect(lookup('P-x')).toEqual({ found: false });
    closeDb(db);
    const empty = tempStore();
    writeFileSync(empty.file, '');
    const probe = openProbe(empty.env)!;
    expect(approvalLookup(probe)('P-x')).toEqual({ found: false });
    expect(getHandoffByContractId(probe, cid(1))).toBeUndefined();
    expect(spentProbe(probe, [cid(1)]).size).toBe(0);
    closeDb(probe);
  });

  it('a probe reads a version-1 store as it is: rows carry require_receipt 0', () => {
    const s = tempStore();
    const v1 = buildAt(s.file, 1);
    row(v1, 1);
    closeDb(v1);
    const probe = openProbe(s.env)!;
    expect(getHandoffByContractId(probe, cid(1))).toMatchObject({ require_receipt: 0, agent_state: 'BLOCKED' });
    closeDb(probe);
  });
});

describe('writeTx', () => {
  it('retries a busy write 3 times in total, then STORE_BUSY (exit 4); the work never ran', () => {
    const { db, file } = store();
    const holder = new (loadSqlite())(file);
    holder.exec('BEGIN IMMEDIATE');
    db.pragma('busy_timeout = 20');
    let runs = 0;
    const started = Date.now();
    const e = caught(() => writeTx(db, () => (runs += 1)));
    expect(e).toMatchObject({ code: 'STORE_BUSY', exit: 4 });
    expect(runs).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    holder.exec('ROLLBACK');
    expect(writeTx(db, () => (runs += 1))).toBe(1);
    holder.close();
    closeDb(db);
  });

  it('rolls back when the work throws and nests inside an open transaction', () => {
    const { db } = store();
    expect(() =>
      writeTx(db, () => {
        row(db, 1);
        writeTx(db, () => row(db, 2));
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(getHandoffByContractId(db, cid(1))).toBeUndefined();
    expect(getHandoffByContractId(db, cid(2))).toBeUndefined();
    closeDb(db);
  });
});

describe('process-level rules (built dist/)', () => {
  it('importing the store modules loads no SQLite; a probe without a DB file loads none either', () => {
    const script = `
      const m = await import(${JSON.stringify(join(REPO, 'dist', 'store', 'sqlite-rows.js'))});
      const db = await import(${JSON.stringify(join(REPO, 'dist', 'store', 'db.js'))});
      const s = await import(${JSON.stringify(join(REPO, 'dist', 'store', 'sqlite.js'))});
      const probe = db.openProbe({ HANDOFF_HOME: ${JSON.stringify(tempStore().dir)} });
      console.log(JSON.stringify({ probe, loaded: s.sqliteLoaded(), fn: typeof m.followChain }));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(JSON.parse(r.stdout)).toEqual({ probe: null, loaded: false, fn: 'function' });
  });

  it('two processes opening one fresh file migrate it once: one row per version, no error', async () => {
    const s = tempStore();
    const script = `
      const db = await import(${JSON.stringify(join(REPO, 'dist', 'store', 'db.js'))});
      const c = db.openWriter({ HANDOFF_DB: process.argv[1] }, undefined, { create: true });
      db.closeDb(c);`;
    const once = (): Promise<number | null> =>
      new Promise((resolve) => {
        const child = spawn(process.execPath, ['--input-type=module', '-e', script, s.file], { stdio: 'inherit' });
        child.on('exit', (code) => resolve(code));
      });
    // Ten rounds: a CI run caught the race of inspect's reads against another process's first migration once.
    for (let round = 0; round < 10; round++) {
      const fresh = tempStore();
      s.file = fresh.file;
      expect(await Promise.all([once(), once(), once()])).toEqual([0, 0, 0]);
      const db = new (loadSqlite())(fresh.file);
      expect(db.prepare('SELECT version FROM schema_version ORDER BY version').all()).toEqual(
        migrationVersions.map((version) => ({ version })),
      );
      db.close();
    }
  });
});
