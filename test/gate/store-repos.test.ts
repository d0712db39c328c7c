/** The SQL of dispatch, claim and the gate (src/store/queries/handoffs.ts, queries/records.ts) on a real store. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closeDb, dbFileOf, openWriter, writeTx, type Db } from '../../src/store/db.js';
import {
  captureNewRow,
  captureOpenRow,
  deleteRejection,
  getHandoffByContractId,
  getRejection,
  insertBirthRow,
  putRejection,
  rowsWithHarnessId,
  setHarnessIdIfNull,
} from '../../src/store/sqlite-rows.js';
import { claimTip, harnessTips } from '../../src/dispatch/harness.js';
import { countBlock, resetKey } from '../../src/gate/breaker.js';
import { isHandoffError } from '../../src/errors.js';
import { openSqlite } from '../../src/store/sqlite-store.js';
import type { Store, TxOptions } from '../../src/store/store.js';

const NOW = '2026-01-01T00:00:00.000Z';

function store(): Db {
  const home = mkdtempSync(join(tmpdir(), 'handoff-gate-store-'));
  return openWriter({ HANDOFF_HOME: home }, home, { create: true }) as Db;
}

/** The Store interface on the same file (the services' view of it). */
const storeOn = (db: Db): Store => openSqlite({ HANDOFF_DB: dbFileOf(db) }, undefined, 'writer')!;

function born(db: Db, id: string, extra: Partial<Parameters<typeof insertBirthRow>[1]> = {}) {
  return writeTx(db, () =>
    insertBirthRow(db, {
      contract_id: id,
      agent_id: id.split('.')[0],
      workspace: 'ws',
      raw_handoff_json: '{}',
      kind: 'investigation',
      plan_task_id: null,
      parent_handoff_id: null,
      brief_id: null,
      goal: 'g',
      consolidation: false,
      require_receipt: false,
      harness_id: null,
      can_write_json: null,
      acceptance_json: null,
      now: NOW,
      ...extra,
    }),
  );
}

const A = 'a0000000000000001.000000000001';
const B = 'a0000000000000002.000000000002';

describe('birth, claim and harness lookup', () => {
  it('inserts the DISPATCHED row and claims set-once', async () => {
    const db = store();
    const row = born(db, A, { consolidation: true, require_receipt: true, plan_task_id: 'T' });
    expect(row).toMatchObject({
      agent_state: 'DISPATCHED',
      cut_reason: 'never_finalized',
      consolidation: 1,
      require_receipt: 1,
      plan_task_id: 'T',
      created_at: NOW,
      updated_at: NOW,
    });
    expect(setHarnessIdIfNull(db, row.id, 'h1', NOW)).toBe(true);
    expect(setHarnessIdIfNull(db, row.id, 'h2', NOW)).toBe(false);
    expect(rowsWithHarnessId(db, 'h1').map((r) => r.contract_id)).toEqual([A]);
    const s = storeOn(db);
    expect((await harnessTips(s, 'h1')).map((r) => r.contract_id)).toEqual([A]);
    await s.close();
    closeDb(db);
  });

  it('claimTip: in use by another chain, unchanged, conflict, claimed', async () => {
    const db = store();
    const a = born(db, A, { harness_id: 'run' });
    const b = born(db, B);
    const s = storeOn(db);
    const claim = (tip: typeof a, hid: string) => s.tx((t) => claimTip(t, tip, hid));
    expect(await claim(b, 'run')).toEqual({ kind: 'in_use', holders: [A] });
    expect(await claim(a, 'run')).toEqual({ kind: 'unchanged' });
    expect(await claim(a, 'other')).toEqual({ kind: 'conflict', current: 'run' });
    expect(await claim(b, 'fresh')).toEqual({ kind: 'claimed' });
    await s.close();
    expect(getHandoffByContractId(db, B)?.harness_id).toBe('fresh');
    closeDb(db);
  });
});

describe('backstop capture SQL', () => {
  it('updates only an open row, keeps an existing harness id, and never touches a closed row', () => {
    const db = store();
    const a = born(db, A, { harness_id: 'keep' });
    expect(captureOpenRow(db, { id: a.id, json: '{"x":1}', harnessId: 'other', now: NOW })).toBe(true);
    expect(getHandoffByContractId(db, A)).toMatchObject({
      agent_state: 'IN_PROGRESS',
      cut_reason: 'backstop_capture',
      raw_handoff_json: '{"x":1}',
      harness_id: 'keep',
    });
    db.prepare("UPDATE handoffs SET agent_state = 'BLOCKED', cut_reason = NULL WHERE id = ?").run(a.id);
    expect(captureOpenRow(db, { id: a.id, json: '{"y":2}', harnessId: null, now: NOW })).toBe(false);
    expect(getHandoffByContractId(db, A)).toMatchObject({ agent_state: 'BLOCKED', raw_handoff_json: '{"x":1}' });
    closeDb(db);
  });

  it('inserts a row for a draft without one, and does nothing when a row appeared meanwhile', () => {
    const db = store();
    expect(
      captureNewRow(db, {
        contractId: B,
        agentId: B.split('.')[0],
        workspace: 'ws',
        json: '{}',
        harnessId: 'h',
        now: NOW,
      }),
    ).toBe(true);
    expect(getHandoffByContractId(db, B)).toMatchObject({
      agent_state: 'IN_PROGRESS',
      cut_reason: 'backstop_capture',
      harness_id: 'h',
      kind: null,
    });
    expect(
      captureNewRow(db, {
        contractId: B,
        agentId: B.split('.')[0],
        workspace: 'ws',
        json: '{"z":1}',
        harnessId: null,
        now: NOW,
      }),
    ).toBe(false);
    expect(getHandoffByContractId(db, B)?.raw_handoff_json).toBe('{}');
    closeDb(db);
  });

  it('writeTx with {attempts: 1} (the gate) maps SQLite failures to store codes and rolls back', () => {
    const db = store();
    born(db, A);
    let code: string | undefined;
    try {
      writeTx(
        db,
        () => {
          db.prepare("UPDATE handoffs SET updated_at = 'changed' WHERE contract_id = ?").run(A);
          db.exec('SELECT * FROM no_such_table');
        },
        { attempts: 1 },
      );
    } catch (e) {
      code = isHandoffError(e) ? e.code : 'other';
    }
    expect(code).toBe('STORE_UNREADABLE');
    expect(getHandoffByContractId(db, A)?.updated_at).toBe(NOW);
    closeDb(db);
  });
});

describe('writeTx attempts (the gate makes one)', () => {
  const busy = (): Error => Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });

  it('retries a busy transaction 3 times in total by default, once with {attempts: 1}; then STORE_BUSY', () => {
    const db = store();
    const tries = { default: 0, one: 0 };
    const codeOf = (f: () => unknown): string | undefined => {
      try {
        f();
      } catch (e) {
        return isHandoffError(e) ? e.code : 'other';
      }
      return undefined;
    };
    const byDefault = codeOf(() =>
      writeTx(db, () => {
        tries.default++;
        throw busy();
      }),
    );
    const once = codeOf(() =>
      writeTx(
        db,
        () => {
          tries.one++;
          throw busy();
        },
        { attempts: 1 },
      ),
    );
    expect([byDefault, once]).toEqual(['STORE_BUSY', 'STORE_BUSY']);
    expect(tries).toEqual({ default: 3, one: 1 });
    closeDb(db);
  });

  it('the breaker on a locked store fails with STORE_BUSY after one attempt (no retries), writing nothing', async () => {
    const db = store();
    const other = openWriter({ HANDOFF_DB: dbFileOf(db) }, undefined, { create: false }) as Db;
    other.exec('BEGIN IMMEDIATE');
    // Record the transactions the breaker asks for instead of timing them: one, with one attempt.
    const s = storeOn(db);
    const asked: TxOptions[] = [];
    const spy: Store = Object.create(s) as Store;
    spy.tx = (fn, opts) => {
      asked.push(opts ?? {});
      return s.tx(fn, opts);
    };
    let code: string | undefined;
    try {
      await countBlock(spy, 'k', ['ROW_NOT_FOUND'], null, 3);
    } catch (e) {
      code = isHandoffError(e) ? e.code : 'other';
    }
    other.exec('ROLLBACK');
    closeDb(other);
    await s.close();
    expect(code).toBe('STORE_BUSY');
    expect(asked).toEqual([expect.objectContaining({ attempts: 1 })]);
    expect(getRejection(db, 'k')).toBeUndefined();
    closeDb(db);
  });
});

describe('rejection counter', () => {
  it('counts, trips at the ceiling, stays tripped, and resets', async () => {
    const db = store();
    const s = storeOn(db);
    expect(await countBlock(s, 'k', ['ROW_NOT_FOUND'], null, 2)).toEqual({
      attempt: 1,
      tripped: false,
      previousCodes: undefined,
    });
    expect(await countBlock(s, 'k', ['ROW_NOT_FINALIZED'], A, 2)).toEqual({
      attempt: 2,
      tripped: true,
      previousCodes: ['ROW_NOT_FOUND'],
    });
    expect(await countBlock(s, 'k', ['ROW_NOT_FINALIZED'], A, 2)).toMatchObject({ attempt: 2, tripped: true });
    expect(getRejection(db, 'k')).toMatchObject({
      attempts: 2,
      tripped: 1,
      last_codes_json: '["ROW_NOT_FINALIZED"]',
      contract_id: A,
    });
    await resetKey(s, 'k');
    await s.close();
    expect(getRejection(db, 'k')).toBeUndefined();
    putRejection(db, { key: 'x', attempts: 1, tripped: false, codes: [], contractId: null, now: NOW });
    expect(deleteRejection(db, 'x')).toBe(1);
    closeDb(db);
  });
});
