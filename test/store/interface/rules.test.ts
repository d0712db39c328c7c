/**
 * The schema's own rules on both backends: row invariants,
 * write-once COMPLETE, frozen and set-once columns, immutable receipts, approval transitions and immutable columns,
 * one continuation link per row, evidence checks. (Ported from the SQLite-only test/store/triggers.test.ts.) Each rule is hit with raw SQL past the interface (the store itself must refuse),
 * and the interface's writes are checked to respect it.
 */
import { describe, expect, it } from 'vitest';
import { computeRowSha256, type ReceiptRow } from '../../../src/receipts/row.js';
import { isConstraintViolation } from '../../../src/store/store.js';
import { BACKENDS, rejection, type Fresh } from '../../helpers/store-backends.js';

const AGENT = 'a0123456789abcdef';
const ID = `${AGENT}.0123456789ab`;

/** Inserts a handoffs row with literal SQL; `cols` override the defaults (strings are quoted, null is NULL). */
function insertRow(f: Fresh, cols: Record<string, string | number | null> = {}): Promise<void> {
  const row = {
    contract_id: ID,
    agent_id: AGENT,
    workspace: 'ws',
    agent_state: 'DISPATCHED',
    cut_reason: 'never_finalized',
    raw_handoff_json: '{}',
    ...cols,
  };
  const lit = (v: string | number | null): string =>
    v === null ? 'NULL' : typeof v === 'number' ? String(v) : `'${v.replace(/'/g, "''")}'`;
  return f.exec(
    `INSERT INTO handoffs (${Object.keys(row).join(', ')}) VALUES (${Object.values(row).map(lit).join(', ')})`,
  );
}

/** The statement is refused by the store itself: a constraint or trigger violation, with `message` when given. */
async function refused(p: Promise<unknown>, message?: RegExp): Promise<void> {
  const e = await rejection(p);
  expect(isConstraintViolation(e), `expected a constraint violation, got ${JSON.stringify(e.message)}`).toBe(true);
  if (message) expect(e.message).toMatch(message);
}

describe.each(BACKENDS)('$name: handoffs rules', (b) => {
  it('row invariants: DISPATCHED ⇔ never_finalized, IN_PROGRESS ⇔ backstop_capture, closing ⇔ NULL; checked values', async () => {
    const f = await b.fresh();
    await (await f.writer()).close();
    await refused(insertRow(f, { cut_reason: null }));
    await refused(insertRow(f, { agent_state: 'IN_PROGRESS', cut_reason: null }));
    await refused(insertRow(f, { agent_state: 'IN_PROGRESS', cut_reason: 'never_finalized' }));
    await refused(insertRow(f, { agent_state: 'COMPLETE', cut_reason: 'backstop_capture' }));
    await refused(insertRow(f, { agent_state: 'DONE', cut_reason: null }));
    await refused(insertRow(f, { raw_handoff_json: '{' }));
    await refused(insertRow(f, { workspace: '' }));
    await refused(insertRow(f, { plan_task_id: '' }));
    await refused(insertRow(f, { consolidation: 2 }));
    await refused(insertRow(f, { require_receipt: 2 }));
    await refused(insertRow(f, { can_write_json: 'x' }));
    await refused(insertRow(f, { parent_handoff_id: 99 }));
    expect(await f.all('SELECT id FROM handoffs')).toEqual([]);
    await insertRow(f, { agent_state: 'IN_PROGRESS', cut_reason: 'backstop_capture' });
    await refused(insertRow(f), /unique|UNIQUE/);
    // Ids are not dense: on PostgreSQL a refused insert still consumes one.
    expect(await f.all('SELECT agent_state FROM handoffs')).toEqual([{ agent_state: 'IN_PROGRESS' }]);
  });

  it('COMPLETE is write-once: raw updates refused; the interface leaves the row unchanged', async () => {
    const f = await b.fresh();
    const s = await f.writer();
    await insertRow(f, { agent_state: 'COMPLETE', cut_reason: null });
    await refused(f.exec("UPDATE handoffs SET agent_state = 'BLOCKED'"), /COMPLETE is write-once/);
    await refused(f.exec('UPDATE handoffs SET raw_handoff_json = \'{"a":1}\''), /COMPLETE is write-once/);
    await refused(f.exec('UPDATE handoffs SET cut_reason = NULL'), /COMPLETE is write-once/);
    await f.exec("UPDATE handoffs SET harness_id = 'h1'");

    const before = await s.getHandoffByContractId(ID);
    const upsert = await s.tx((t) =>
      t.upsertFinalRow({
        contract_id: ID,
        agent_id: AGENT,
        workspace: 'ws',
        agent_state: 'BLOCKED',
        json: '{"b":2}',
        plan_task_id: null,
      }),
    );
    expect(upsert).toBeUndefined();
    expect(await s.tx((t) => t.captureOpenRow({ id: before!.id, json: '{"c":3}', harnessId: null }))).toBe(false);
    expect(await s.tx((t) => t.mirrorEnvelope(ID, '{"d":4}', 1))).toBe('closed');
    expect(await s.getHandoffByContractId(ID)).toEqual(before);
    expect(before).toMatchObject({ agent_state: 'COMPLETE', raw_handoff_json: '{}', harness_id: 'h1' });
    await s.close();
  });

  it('frozen columns never change; set-once columns (finalized_at too) change only from NULL', async () => {
    const f = await b.fresh();
    await (await f.writer()).close();
    await insertRow(f, { kind: 'k', goal: 'g' });
    for (const set of [
      `contract_id = '${AGENT}.ffffffffffff'`,
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
      await refused(f.exec(`UPDATE handoffs SET ${set}`), /frozen column/);
    }
    await f.exec(
      "UPDATE handoffs SET plan_task_id = 'T-1', harness_id = 'h1', finalized_at = '2024-01-01T00:00:00.000Z'",
    );
    await refused(f.exec("UPDATE handoffs SET plan_task_id = 'T-2'"), /set-once/);
    await refused(f.exec('UPDATE handoffs SET plan_task_id = NULL'), /set-once/);
    await refused(f.exec("UPDATE handoffs SET harness_id = 'h2'"), /set-once/);
    await refused(f.exec("UPDATE handoffs SET finalized_at = '2025-01-01T00:00:00.000Z'"), /frozen column/);
    await f.exec("UPDATE handoffs SET gate_seen_at = '2025-01-01T00:00:00.000Z', updated_at = 'x'");
    await f.exec("UPDATE handoffs SET gate_seen_at = '2025-02-01T00:00:00.000Z'");
    expect(await f.all('SELECT plan_task_id, harness_id, finalized_at, gate_seen_at FROM handoffs')).toEqual([
      {
        plan_task_id: 'T-1',
        harness_id: 'h1',
        finalized_at: '2024-01-01T00:00:00.000Z',
        gate_seen_at: '2025-02-01T00:00:00.000Z',
      },
    ]);
  });

  it('claim_token_sha256 is set once and holds only a lowercase hex sha256', async () => {
    const f = await b.fresh();
    const s = await f.writer();
    try {
      await insertRow(f);
      await refused(f.exec("UPDATE handoffs SET claim_token_sha256 = 'hct_plain_token'"));
      await refused(f.exec(`UPDATE handoffs SET claim_token_sha256 = '${'A'.repeat(64)}'`));
      const id = Number((await f.all('SELECT id FROM handoffs'))[0].id);
      expect(await s.tx((t) => t.setClaimTokenHash(id, 'a'.repeat(64)))).toBe(true);
      expect(await s.tx((t) => t.setClaimTokenHash(id, 'b'.repeat(64)))).toBe(false); // already set
      await refused(f.exec(`UPDATE handoffs SET claim_token_sha256 = '${'c'.repeat(64)}'`), /set-once/);
      await refused(f.exec('UPDATE handoffs SET claim_token_sha256 = NULL'), /set-once/);
      expect(await f.all('SELECT claim_token_sha256 FROM handoffs')).toEqual([{ claim_token_sha256: 'a'.repeat(64) }]);
    } finally {
      await s.close();
    }
  });

  it('test_base_json is set once; test_changes_json never changes on a COMPLETE row; both hold JSON', async () => {
    const f = await b.fresh();
    const s = await f.writer();
    try {
      await insertRow(f);
      await refused(f.exec("UPDATE handoffs SET test_base_json = '{'"));
      await refused(f.exec("UPDATE handoffs SET test_changes_json = '{'"));
      const id = Number((await f.all('SELECT id FROM handoffs'))[0].id);
      expect(await s.tx((t) => t.setTestBase(id, '{"b":1}'))).toBe(true);
      expect(await s.tx((t) => t.setTestBase(id, '{"b":2}'))).toBe(false); // already set: nothing changes
      await refused(f.exec('UPDATE handoffs SET test_base_json = \'{"b":3}\''), /set-once/);
      // A continuation's inherited base fills only a NULL base.
      expect(await s.tx((t) => t.setTestChanges(id, '{"c":1}', '{"b":9}'))).toBe(true);
      await f.exec("UPDATE handoffs SET agent_state = 'COMPLETE', cut_reason = NULL");
      await refused(f.exec('UPDATE handoffs SET test_changes_json = \'{"c":2}\''), /write-once/);
      await refused(s.tx((t) => t.setTestChanges(id, '{"c":3}', null)));
      expect(await f.all('SELECT test_base_json, test_changes_json FROM handoffs')).toEqual([
        { test_base_json: '{"b":1}', test_changes_json: '{"c":1}' },
      ]);
    } finally {
      await s.close();
    }
  });

  it('one continuation link per closed row: the second insertContinuation opens nothing', async () => {
    const f = await b.fresh();
    const s = await f.writer();
    await insertRow(f, { agent_state: 'BLOCKED', cut_reason: null });
    const parent = (await s.getHandoffByContractId(ID))!;
    const link = await s.tx((t) =>
      t.insertContinuation(parent, `${AGENT}.000000000001`, '{"continues_contract_id":"x"}'),
    );
    expect(link).toMatchObject({
      continues_handoff_id: parent.id,
      agent_state: 'DISPATCHED',
      cut_reason: 'never_finalized',
    });
    expect(await s.tx((t) => t.insertContinuation(parent, `${AGENT}.000000000002`, '{}'))).toBeUndefined();
    expect(await s.getHandoffByContractId(`${AGENT}.000000000002`)).toBeUndefined();
    await refused(
      insertRow(f, { contract_id: `${AGENT}.000000000003`, continues_handoff_id: parent.id }),
      /unique|UNIQUE/,
    );
    await s.close();
  });
});

const RECEIPT: ReceiptRow = (() => {
  const base = {
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
    outcome: 'pass' as const,
    stdout_sha256: 'a'.repeat(64),
    stdout_bytes: 1,
    stderr_sha256: 'b'.repeat(64),
    stderr_bytes: 0,
    stdout_text: 'x',
    stderr_text: '',
    stdout_path: null,
    stderr_path: null,
    git_head: null,
    tree_fingerprint: null,
  };
  return { ...base, row_sha256: computeRowSha256(base) };
})();

describe.each(BACKENDS)('$name: receipts and approvals', (b) => {
  it('receipts are stored verbatim (row_sha256 still verifies), immutable, and checked', async () => {
    const f = await b.fresh();
    const s = await f.writer();
    await s.tx((t) => t.insertReceipt(RECEIPT));
    const back = await s.getReceipt(RECEIPT.receipt_id);
    expect(back).toEqual(RECEIPT);
    expect(computeRowSha256(back!)).toBe(RECEIPT.row_sha256);
    expect(await s.listReceiptsByContracts([ID, 'other'])).toEqual([RECEIPT]);
    await refused(f.exec("UPDATE receipts SET command = 'x'"), /receipts are immutable/);
    await refused(f.exec('DELETE FROM receipts'), /receipts are immutable/);
    const bad: Partial<Record<keyof ReceiptRow, unknown>>[] = [
      { receipt_id: 'R-0123456789ABCDEF' },
      { receipt_id: 'R-1111111111111111', outcome: 'fail' },
      { receipt_id: 'R-2222222222222222', exit_code: null, timed_out: 1, outcome: 'pass' },
      { receipt_id: 'R-4444444444444444', stdout_path: '/x' },
      { receipt_id: 'R-5555555555555555', git_head: 'abc' },
      { receipt_id: 'R-6666666666666666', finished_at: '2023-01-01T00:00:00.000Z' },
      { receipt_id: 'R-7777777777777777', argv_json: '{"not":"an array"}' },
    ];
    for (const change of bad) await refused(s.tx((t) => t.insertReceipt({ ...RECEIPT, ...change } as ReceiptRow)));
    expect(await s.listReceiptsByContracts([ID])).toHaveLength(1);
    await s.close();
  });

  it('approval transitions: allowed ones change, a repeat is a no-op, the rest is refused with nothing written', async () => {
    const f = await b.fresh();
    const s = await f.writer();
    const a = await s.tx((t) =>
      t.insertApproval({ workspace: 'ws', agent_id: AGENT, contract_id: ID, exact_content: 'ship it' }),
    );
    expect(a).toMatchObject({ status: 'pending', decided_at: null, exact_content: 'ship it' });
    expect(a.id).toMatch(/^P-[0-9a-f]{32}$/);
    expect(await s.approvalStatus(a.id)).toEqual({
      found: true,
      status: 'pending',
      contractId: ID,
      agentId: AGENT,
      fingerprint: a.fingerprint,
      decidedAt: null,
      usedByHandoffId: null,
      usedByContractId: null,
    });
    expect(await rejection(s.tx((t) => t.decideApproval(a.id, 'revoked', 'me', null)))).toMatchObject({
      code: 'APPROVAL_TRANSITION_REFUSED',
      exit: 1,
    });
    const approved = await s.tx((t) => t.decideApproval(a.id, 'approved', 'me', 'ok'));
    expect(approved).toMatchObject({
      previous: 'pending',
      changed: true,
      row: { status: 'approved', decided_by: 'me', decision_note: 'ok' },
    });
    expect(approved.row.decided_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(await s.tx((t) => t.decideApproval(a.id, 'approved', 'other', null))).toMatchObject({
      changed: false,
      row: approved.row,
    });
    expect(await rejection(s.tx((t) => t.decideApproval(a.id, 'expired', null, null)))).toMatchObject({
      code: 'APPROVAL_TRANSITION_REFUSED',
    });
    expect(await s.getApproval(a.id)).toEqual(approved.row);
    expect(
      await rejection(s.tx((t) => t.decideApproval('P-00000000000000000000000000000000', 'approved', null, null))),
    ).toMatchObject({
      code: 'APPROVAL_NOT_FOUND',
      exit: 3,
    });
    expect(await s.approvalStatus('P-x')).toEqual({ found: false });
    await s.close();
  });

  it('approved → used by a handoff row, once, keeping the decision; used is final on both backends', async () => {
    const f = await b.fresh();
    const s = await f.writer();
    await insertRow(f, { agent_state: 'BLOCKED', cut_reason: null });
    const handoff = (await s.getHandoffByContractId(ID))!.id;
    const a = await s.tx((t) =>
      t.insertApproval({ workspace: 'ws', agent_id: AGENT, contract_id: ID, exact_content: 'ship it' }),
    );
    expect(await s.tx((t) => t.markApprovalUsed(a.id, handoff))).toBe(false);
    const approved = (await s.tx((t) => t.decideApproval(a.id, 'approved', 'me', 'ok'))).row;
    expect(await s.tx((t) => t.markApprovalUsed(a.id, handoff))).toBe(true);
    expect(await s.tx((t) => t.markApprovalUsed(a.id, handoff))).toBe(false);
    const used = (await s.getApproval(a.id))!;
    expect(used).toMatchObject({
      status: 'used',
      decided_at: approved.decided_at,
      decided_by: 'me',
      decision_note: 'ok',
      used_by_handoff_id: handoff,
    });
    expect(used.used_at! >= approved.decided_at!).toBe(true);
    expect(await s.approvalStatus(a.id)).toMatchObject({ found: true, status: 'used', usedByHandoffId: handoff });
    for (const d of ['revoked', 'approved', 'expired', 'used'] as const) {
      expect(await rejection(s.tx((t) => t.decideApproval(a.id, d, null, null)))).toMatchObject({
        code: 'APPROVAL_TRANSITION_REFUSED',
        exit: 1,
      });
    }
    await refused(f.exec(`UPDATE approvals SET status = 'revoked' WHERE id = '${a.id}'`));
    await refused(f.exec(`UPDATE approvals SET used_by_handoff_id = NULL WHERE id = '${a.id}'`));
    expect(await s.getApproval(a.id)).toEqual(used);
    expect((await s.listApprovals({ status: 'used', limit: 10 })).map((r) => r.id)).toEqual([a.id]);
    await s.close();
  });

  it('approval rules in the schema: transitions and immutable columns are refused by triggers', async () => {
    const f = await b.fresh();
    await (await f.writer()).close();
    await f.exec("INSERT INTO approvals (id, workspace, exact_content, fingerprint) VALUES ('P-1', 'ws', 'c', 'f')");
    await refused(
      f.exec("INSERT INTO approvals (id, workspace, exact_content, fingerprint) VALUES ('X-1', 'ws', 'c', 'f')"),
    );
    await refused(f.exec("UPDATE approvals SET status = 'approved' WHERE id = 'P-1'"));
    await refused(
      f.exec("UPDATE approvals SET status = 'revoked', decided_at = 'now' WHERE id = 'P-1'"),
      /transition refused/,
    );
    await f.exec("UPDATE approvals SET status = 'approved', decided_at = 'now' WHERE id = 'P-1'");
    await refused(f.exec("UPDATE approvals SET status = 'expired' WHERE id = 'P-1'"), /transition refused/);
    await f.exec("UPDATE approvals SET status = 'revoked' WHERE id = 'P-1'");
    await refused(f.exec("UPDATE approvals SET status = 'approved' WHERE id = 'P-1'"), /transition refused/);
    for (const set of ["exact_content = 'd'", "fingerprint = 'g'", "created_at = 'x'", "id = 'P-2'"]) {
      await refused(f.exec(`UPDATE approvals SET ${set}`), /immutable/);
    }
    expect(await f.all('SELECT id, status, exact_content FROM approvals')).toEqual([
      { id: 'P-1', status: 'revoked', exact_content: 'c' },
    ]);
  });

  it('evidence: exactly one of text and artifact_path; a lowercase hex sha256; a receipt_id must exist', async () => {
    const f = await b.fresh();
    await (await f.writer()).close();
    await f.exec("INSERT INTO briefs (workspace, name) VALUES ('ws', 'b')");
    const ev = (cols: string, vals: string, sha = 'a'.repeat(64)): Promise<void> =>
      f.exec(
        `INSERT INTO evidence (brief_id, ac_id, type, size_bytes, sha256, ${cols}) VALUES (1, 'AC-1', 'text', 1, '${sha}', ${vals})`,
      );
    await ev('text', "'x'");
    await refused(ev('text, artifact_path', "'x', '/p'"));
    await refused(ev('task_id', "'t'"));
    await refused(ev('text, receipt_id', "'x', 'R-0000000000000000'"));
    await refused(ev('text', "'x'", 'A'.repeat(64)));
    await refused(ev('text', "'x'", 'a'.repeat(63)));
    await refused(
      f.exec(
        "INSERT INTO evidence (brief_id, ac_id, type, size_bytes, sha256, text) VALUES (1, 'AC-1', 'photo', 1, 'x', 'x')",
      ),
    );
    expect(await f.all('SELECT text FROM evidence')).toEqual([{ text: 'x' }]);
  });

  it('briefs and acceptance criteria are unique ignoring ASCII case only', async () => {
    const f = await b.fresh();
    const s = await f.writer();
    const brief = await s.tx((t) => t.insertBrief({ workspace: 'ws', name: 'Login', title: null, objective: null }));
    await refused(s.tx((t) => t.insertBrief({ workspace: 'ws', name: 'LOGIN', title: null, objective: null })));
    await s.tx((t) => t.insertBrief({ workspace: 'other', name: 'login', title: null, objective: null }));
    await s.tx((t) => t.appendAcs(brief.id, [{ ac_id: 'AC-1', description: 'd' }]));
    await refused(s.tx((t) => t.appendAcs(brief.id, [{ ac_id: 'ac-1', description: 'again' }])));
    expect(await s.listAcs(brief.id)).toEqual([{ ac_id: 'AC-1', description: 'd', position: 1 }]);
    expect(await s.findBrief('ws', 'login')).toBeUndefined();
    expect(await s.findBriefIgnoringCase('ws', 'lOgIn')).toMatchObject({ id: brief.id, name: 'Login' });
    await s.close();
  });
});

describe.each(BACKENDS)('$name: attestations', (b) => {
  it('listAttestations is oldest first; latestAttestation is its last row, per kind and subject', async () => {
    const f = await b.fresh();
    const s = await f.writer();
    const statement = (kind: 'receipt' | 'approval', subject: string, n: number) => ({
      kind,
      subject_id: subject,
      payload: JSON.stringify({ n }),
      payload_sha256: n.toString(16).padStart(64, '0'),
      signer: null,
      key_id: null,
      signature: null,
    });
    await s.tx(async (t) => {
      await t.insertAttestation(statement('receipt', 'R-1', 1));
      await t.insertAttestation(statement('approval', 'R-1', 2));
      await t.insertAttestation(statement('receipt', 'R-1', 3));
      await t.insertAttestation(statement('receipt', 'R-2', 4));
    });
    const all = await s.listAttestations('receipt', 'R-1');
    expect(all.map((a) => a.payload)).toEqual(['{"n":1}', '{"n":3}']);
    expect(await s.latestAttestation('receipt', 'R-1')).toEqual(all[1]);
    expect((await s.latestAttestation('approval', 'R-1'))?.payload).toBe('{"n":2}');
    expect(await s.latestAttestation('receipt', 'R-3')).toBeUndefined();
    await s.close();
  });
});
