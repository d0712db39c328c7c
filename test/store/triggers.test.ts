import { describe, expect, it } from 'vitest';
import { closeDb, openWriter, type Db } from '../../src/store/db.js';
import { tempStore } from './helpers.js';

const ID = 'a0123456789abcdef.0123456789ab';

function store(): Db {
  return openWriter(tempStore().env, undefined, { create: true })!;
}

function insert(db: Db, cols: Record<string, unknown>): number {
  const row = {
    contract_id: ID,
    agent_id: 'a0123456789abcdef',
    workspace: 'ws',
    agent_state: 'DISPATCHED',
    cut_reason: 'never_finalized',
    raw_handoff_json: '{}',
    ...cols,
  };
  const keys = Object.keys(row);
  return (
    db.prepare(`INSERT INTO handoffs (${keys.join(', ')}) VALUES (${keys.map((k) => `@${k}`).join(', ')}) RETURNING id`).get(row) as {
      id: number;
    }
  ).id;
}

const fails = (fn: () => unknown, message: RegExp): void => {
  expect(fn).toThrow(message);
};

describe('handoffs constraints and triggers', () => {
  it('row invariants: DISPATCHED ⇔ never_finalized, IN_PROGRESS ⇔ backstop_capture, closing ⇔ NULL', () => {
    const db = store();
    fails(() => insert(db, { cut_reason: null }), /CHECK constraint/);
    fails(() => insert(db, { agent_state: 'IN_PROGRESS', cut_reason: null }), /CHECK constraint/);
    fails(() => insert(db, { agent_state: 'IN_PROGRESS', cut_reason: 'never_finalized' }), /CHECK constraint/);
    fails(() => insert(db, { agent_state: 'COMPLETE', cut_reason: 'backstop_capture' }), /CHECK constraint/);
    fails(() => insert(db, { agent_state: 'DONE', cut_reason: null }), /CHECK constraint/);
    fails(() => insert(db, { raw_handoff_json: '{' }), /CHECK constraint/);
    fails(() => insert(db, { workspace: '' }), /CHECK constraint/);
    fails(() => insert(db, { plan_task_id: '' }), /CHECK constraint/);
    fails(() => insert(db, { consolidation: 2 }), /CHECK constraint/);
    fails(() => insert(db, { require_receipt: 2 }), /CHECK constraint/);
    fails(() => insert(db, { can_write_json: 'x' }), /CHECK constraint/);
    fails(() => insert(db, { parent_handoff_id: 99 }), /FOREIGN KEY/);
    expect(insert(db, { agent_state: 'IN_PROGRESS', cut_reason: 'backstop_capture' })).toBe(1);
    closeDb(db);
  });

  it('COMPLETE is write-once (state, envelope, cut_reason); other columns such as harness_id may still be claimed', () => {
    const db = store();
    insert(db, { agent_state: 'COMPLETE', cut_reason: null });
    fails(() => db.prepare("UPDATE handoffs SET agent_state = 'BLOCKED'").run(), /COMPLETE is write-once/);
    fails(() => db.prepare("UPDATE handoffs SET raw_handoff_json = '{\"a\":1}'").run(), /COMPLETE is write-once/);
    fails(() => db.prepare("UPDATE handoffs SET cut_reason = NULL").run(), /COMPLETE is write-once/);
    expect(db.prepare("UPDATE handoffs SET harness_id = 'h1'").run().changes).toBe(1);
    closeDb(db);
  });

  it('frozen columns never change; set-once columns change only from NULL', () => {
    const db = store();
    insert(db, { kind: 'k', goal: 'g', plan_task_id: null, brief_id: null, harness_id: null });
    for (const set of [
      "contract_id = 'a0123456789abcdef.ffffffffffff'",
      "agent_id = 'affffffffffffffff'",
      "workspace = 'other'",
      "kind = 'x'",
      'parent_handoff_id = 1',
      'continues_handoff_id = 1',
      "goal = 'x'",
      'consolidation = 1',
      'require_receipt = 1',
      "can_write_json = '[]'",
      "acceptance_json = '[]'",
      "created_at = '2000-01-01T00:00:00.000Z'",
    ]) {
      fails(() => db.prepare(`UPDATE handoffs SET ${set}`).run(), /frozen column/);
    }
    db.prepare("UPDATE handoffs SET plan_task_id = 'T-1', harness_id = 'h1'").run();
    fails(() => db.prepare("UPDATE handoffs SET plan_task_id = 'T-2'").run(), /set-once/);
    fails(() => db.prepare('UPDATE handoffs SET plan_task_id = NULL').run(), /set-once/);
    fails(() => db.prepare("UPDATE handoffs SET harness_id = 'h2'").run(), /set-once/);
    expect(db.prepare("UPDATE handoffs SET plan_task_id = 'T-1', updated_at = 'x'").run().changes).toBe(1);
    closeDb(db);
  });

  it('one continuation link per closed row (handoffs_continues_uq)', () => {
    const db = store();
    const parent = insert(db, { agent_state: 'BLOCKED', cut_reason: null });
    insert(db, { contract_id: 'a0123456789abcdef.000000000001', continues_handoff_id: parent });
    fails(() => insert(db, { contract_id: 'a0123456789abcdef.000000000002', continues_handoff_id: parent }), /UNIQUE/);
    closeDb(db);
  });
});

describe('receipts, approvals and evidence', () => {
  const receipt = {
    receipt_id: 'R-0123456789abcdef',
    contract_id: ID,
    workspace: 'ws',
    argv_json: '["npm","test"]',
    shell: 0,
    command: 'npm test',
    cwd: '/tmp',
    started_at: '2024-01-01T00:00:00.000Z',
    finished_at: '2024-01-01T00:00:01.000Z',
    duration_ms: 1000,
    exit_code: 0,
    signal: null,
    timed_out: 0,
    outcome: 'pass',
    stdout_sha256: 'a'.repeat(64),
    stderr_sha256: 'b'.repeat(64),
    stdout_bytes: 1,
    stderr_bytes: 0,
    stdout_text: 'x',
    stderr_text: '',
    stdout_path: null,
    stderr_path: null,
    git_head: null,
    tree_fingerprint: null,
    row_sha256: 'c'.repeat(64),
  };
  const insertReceipt = (db: Db, r: Record<string, unknown>): void => {
    const keys = Object.keys(r);
    db.prepare(`INSERT INTO receipts (${keys.join(', ')}) VALUES (${keys.map((k) => `@${k}`).join(', ')})`).run(r);
  };

  it('receipts are immutable and checked', () => {
    const db = store();
    insertReceipt(db, receipt);
    fails(() => db.prepare("UPDATE receipts SET command = 'x'").run(), /receipts are immutable/);
    fails(() => db.prepare('DELETE FROM receipts').run(), /receipts are immutable/);
    fails(() => insertReceipt(db, { ...receipt, receipt_id: 'R-0123456789ABCDEF' }), /CHECK/);
    fails(() => insertReceipt(db, { ...receipt, receipt_id: 'R-1', outcome: 'fail' }), /CHECK/);
    fails(() => insertReceipt(db, { ...receipt, receipt_id: 'R-1111111111111111', outcome: 'fail' }), /CHECK/);
    fails(() => insertReceipt(db, { ...receipt, receipt_id: 'R-2222222222222222', exit_code: null, timed_out: 1, outcome: 'pass' }), /CHECK/);
    insertReceipt(db, { ...receipt, receipt_id: 'R-3333333333333333', exit_code: null, timed_out: 1, outcome: 'unproven' });
    fails(() => insertReceipt(db, { ...receipt, receipt_id: 'R-4444444444444444', stdout_path: '/x' }), /CHECK/);
    fails(() => insertReceipt(db, { ...receipt, receipt_id: 'R-5555555555555555', git_head: 'abc' }), /CHECK/);
    fails(() => insertReceipt(db, { ...receipt, receipt_id: 'R-6666666666666666', finished_at: '2023-01-01T00:00:00.000Z' }), /CHECK/);
    closeDb(db);
  });

  it('approvals: transitions and immutable columns are enforced by triggers', () => {
    const db = store();
    const add = (id: string): void => {
      db.prepare("INSERT INTO approvals (id, workspace, exact_content, fingerprint) VALUES (?, 'ws', 'c', 'f')").run(id);
    };
    add('P-1');
    fails(() => db.prepare("INSERT INTO approvals (id, workspace, exact_content, fingerprint) VALUES ('X-1', 'ws', 'c', 'f')").run(), /CHECK/);
    fails(() => db.prepare("UPDATE approvals SET status = 'approved' WHERE id = 'P-1'").run(), /CHECK/);
    fails(() => db.prepare("UPDATE approvals SET status = 'revoked', decided_at = 'now' WHERE id = 'P-1'").run(), /transition refused/);
    db.prepare("UPDATE approvals SET status = 'approved', decided_at = 'now' WHERE id = 'P-1'").run();
    fails(() => db.prepare("UPDATE approvals SET status = 'expired' WHERE id = 'P-1'").run(), /transition refused/);
    db.prepare("UPDATE approvals SET status = 'revoked' WHERE id = 'P-1'").run();
    fails(() => db.prepare("UPDATE approvals SET status = 'approved' WHERE id = 'P-1'").run(), /transition refused/);
    for (const set of ["exact_content = 'd'", "fingerprint = 'g'", "created_at = 'x'", "id = 'P-2'"]) {
      fails(() => db.prepare(`UPDATE approvals SET ${set}`).run(), /immutable/);
    }
    closeDb(db);
  });

  it('evidence: exactly one of text and artifact_path; a hex sha256; a receipt_id must exist', () => {
    const db = store();
    db.prepare("INSERT INTO briefs (workspace, name) VALUES ('ws', 'b')").run();
    const ev = (cols: string, vals: string): void => {
      db.prepare(`INSERT INTO evidence (brief_id, ac_id, type, size_bytes, sha256, ${cols}) VALUES (1, 'AC-1', 'text', 1, '${'a'.repeat(64)}', ${vals})`).run();
    };
    ev('text', "'x'");
    fails(() => ev('text, artifact_path', "'x', '/p'"), /CHECK/);
    fails(() => ev('task_id', "'t'"), /CHECK/);
    fails(() => ev('text, receipt_id', "'x', 'R-0000000000000000'"), /FOREIGN KEY/);
    fails(() => db.prepare(`INSERT INTO evidence (brief_id, ac_id, type, text, size_bytes, sha256) VALUES (1, 'a', 'text', 'x', 1, '${'A'.repeat(64)}')`).run(), /CHECK/);
    fails(() => db.prepare("INSERT INTO briefs (workspace, name) VALUES ('ws', 'B')").run(), /UNIQUE/);
    closeDb(db);
  });
});
