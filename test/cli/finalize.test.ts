import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, run, runAsync, snapshot, tempHome } from '../helpers/cli.js';
import {
  countRows,
  dbFile,
  draftPath,
  envelopeIn,
  expectCleanFailure,
  mintAgent,
  mintDraft,
  prefix,
  readDraftFile,
  rowOf,
  runJson,
  seedRow,
  withStore,
  writeDraft,
} from '../helpers/store-cli.js';

const finalize = (home: string, ...args: string[]) => runJson(home, ['contract', 'finalize', ...args]);

/** A home with one draft in `state`; returns [home, draft id]. */
function homeWith(state: string, extra: Record<string, unknown> = {}): [string, string] {
  const home = tempHome();
  const id = mintDraft();
  writeDraft(home, id, envelopeIn(prefix(id), state, extra));
  return [home, id];
}

/** A refusal: exit code, code, and nothing written (no DB created, no file changed). */
function expectRefusal(home: string, args: string[], exit: number, code: string): any {
  const before = snapshot(home);
  const r = finalize(home, ...args);
  expectCleanFailure(r, exit, code);
  expect(snapshot(home)).toEqual(before);
  return r.json;
}

/** A list rejection (steps 4, 9, 9b, 10): exit 1, the [code, path] pairs, and nothing written. */
function expectListRejection(home: string, args: string[], pairs: [string, string][]): any {
  const before = snapshot(home);
  const r = finalize(home, ...args);
  expect(r.code, r.stdout + r.stderr).toBe(1);
  expect(r.json.status).toBe('rejected');
  expect(r.json.errors.map((e: any) => [e.code, e.path])).toEqual(pairs);
  expect(r.json.codes).toEqual([...new Set(pairs.map((p) => p[0]))]);
  expect(snapshot(home)).toEqual(before);
  return r.json;
}

beforeAll(() => {
  expect(existsSync(new URL('../../dist/cli/main.js', import.meta.url)), 'run npm run build first').toBe(true);
});

describe('finalize: flags and addressing (exit 2, 3)', () => {
  it('refuses malformed ids, a mismatch, a blank workspace and a bad plan task id before any access', () => {
    const [home, id] = homeWith('BLOCKED');
    expectRefusal(home, ['--draft-id', 'a/../x'], 2, 'INVALID_DRAFT_ID');
    expectRefusal(home, ['--agent-id', 'A*'], 2, 'INVALID_AGENT_ID');
    expectRefusal(home, ['--draft-id', id, '--agent-id', mintAgent()], 2, 'DRAFT_ID_AGENT_MISMATCH');
    expectRefusal(home, ['--draft-id', id, '--workspace', '  '], 2, 'USAGE');
    expectRefusal(home, ['--draft-id', id, '--plan-task-id', 'a\u0007b'], 2, 'USAGE');
    expectRefusal(home, ['--draft-id', id, '--plan-task-id', 'x'.repeat(201)], 2, 'USAGE');
    expectRefusal(home, ['--draft-id', id, '--bogus'], 2, 'USAGE');
  });

  it('DRAFT_NOT_FOUND (exit 3) for an unknown id and for an empty home; the store is not created', () => {
    const home = tempHome();
    expectRefusal(home, ['--draft-id', mintDraft()], 3, 'DRAFT_NOT_FOUND');
    expectRefusal(home, [], 3, 'DRAFT_NOT_FOUND');
    expect(existsSync(dbFile(home))).toBe(false);
  });

  it('AMBIGUOUS_DRAFT when drafts of two agents could be meant', () => {
    const [home] = homeWith('BLOCKED');
    writeDraft(home, mintDraft(), envelopeIn(mintAgent(), 'BLOCKED'));
    const j = expectRefusal(home, [], 2, 'AMBIGUOUS_DRAFT');
    expect(j.candidates).toHaveLength(2);
  });

  it("--agent-id resolves the agent's one draft", () => {
    const [home, id] = homeWith('BLOCKED');
    const r = finalize(home, '--agent-id', prefix(id));
    expect(r.json).toMatchObject({ status: 'ok', created: true, draft_id: id });
  });
});

describe('finalize: refusals of steps 4-8 (exit 1, nothing written)', () => {
  it('CLOSING_STATE_REQUIRED for IN_PROGRESS, with its reason', () => {
    const [home, id] = homeWith('IN_PROGRESS');
    const j = expectRefusal(home, ['--draft-id', id], 1, 'CLOSING_STATE_REQUIRED');
    expect(j).toMatchObject({ status: 'rejected', draft_id: id, reason: 'closing_state_required' });
    expect(existsSync(dbFile(home))).toBe(false);
  });

  it('a validation failure lists the validator codes', () => {
    const home = tempHome();
    const id = mintDraft();
    const e = envelopeIn(prefix(id), 'COMPLETE');
    delete e.evidence_report.verification;
    writeDraft(home, id, e);
    const before = snapshot(home);
    const r = finalize(home, '--draft-id', id);
    expect(r.code).toBe(1);
    expect(r.json).toMatchObject({ status: 'rejected', draft_id: id });
    expect(r.json.codes).toContain('VERIFICATION_RESULT');
    // Short unless --explain: the repair text only when asked for.
    expect(r.json.repair).toBeUndefined();
    expect(typeof finalize(home, '--draft-id', id, '--explain').json.repair).toBe('string');
    expect(snapshot(home)).toEqual(before);
  });

  it('the human rejection header says nothing was persisted', () => {
    const [home, id] = homeWith('IN_PROGRESS');
    const r = run(home, ['contract', 'finalize', '--draft-id', id]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^Rejected: finalize refused -- nothing was persisted\.\n {2}CLOSING_STATE_REQUIRED: /);
  });

  it('AGENT_ID_MISMATCH when agent_status.agent_id is another agent', () => {
    const home = tempHome();
    const id = mintDraft();
    writeDraft(home, id, envelopeIn(mintAgent(), 'BLOCKED'));
    expectRefusal(home, ['--draft-id', id], 1, 'AGENT_ID_MISMATCH');
  });

  it('PLAN_TASK_CONFLICT against the row binding, with both ids', () => {
    const [home, id] = homeWith('NEEDS_VERIFICATION');
    seedRow(home, { contract_id: id, plan_task_id: 'T-1', kind: 'task_execution' });
    const j = expectRefusal(home, ['--draft-id', id, '--plan-task-id', 'T-2'], 1, 'PLAN_TASK_CONFLICT');
    expect(j).toMatchObject({ plan_task_id: 'T-1', requested_plan_task_id: 'T-2' });
  });

  it('BLIND_VERIFICATION_REQUIRED for COMPLETE on a bound row and with --plan-task-id on an unbound turn', () => {
    const [home, id] = homeWith('COMPLETE');
    seedRow(home, { contract_id: id, plan_task_id: '0', kind: 'task_execution' });
    const j = expectRefusal(home, ['--draft-id', id], 1, 'BLIND_VERIFICATION_REQUIRED');
    expect(j).toMatchObject({ reason: 'blind_verification_required', plan_task_id: '0' });
    const [home2, id2] = homeWith('COMPLETE');
    expectRefusal(home2, ['--draft-id', id2, '--plan-task-id', 'T-9'], 1, 'BLIND_VERIFICATION_REQUIRED');
    expect(existsSync(dbFile(home2))).toBe(false);
  });

  it('an approval decided after the write makes finalize reject (APPROVAL_ID_NOT_PENDING)', () => {
    const home = tempHome();
    const ap = runJson(home, ['approval', 'request', '--content', 'git push origin main']).json.approval_id as string;
    const id = mintDraft();
    writeDraft(
      home,
      id,
      envelopeIn(prefix(id), 'APPROVAL_REQUEST', {
        approval_request: { exact_content: 'git push origin main', approval_id: ap },
      }),
    );
    runJson(home, ['approval', 'decide', ap, '--decision', 'rejected']);
    const r = finalize(home, '--draft-id', id);
    expect(r.code).toBe(1);
    expect(r.json.codes).toEqual(['APPROVAL_ID_NOT_PENDING']);
    expect(countRows(home)).toBe(0);
  });
});

describe('finalize: update_contracts (step 9, step 10)', () => {
  it('UPDATE_CONTRACTS_SHAPE for a non-array', () => {
    const [home, id] = homeWith('BLOCKED', { update_contracts: 'nope' });
    expectListRejection(home, ['--draft-id', id], [['UPDATE_CONTRACTS_SHAPE', 'update_contracts']]);
  });

  it('UPDATE_CONTRACTS_SHAPE per malformed entry, indexed in the full array; null and [] apply nothing', () => {
    const uc = [{ contract: 'notes', payload: {} }, 5, { contract: ' ', payload: [] }, { payload: {} }];
    const [home, id] = homeWith('BLOCKED', { update_contracts: uc });
    const j = expectListRejection(
      home,
      ['--draft-id', id, '--explain'],
      [
        ['UPDATE_CONTRACTS_SHAPE', 'update_contracts[1]'],
        ['UPDATE_CONTRACTS_SHAPE', 'update_contracts[2].contract'],
        ['UPDATE_CONTRACTS_SHAPE', 'update_contracts[2].payload'],
        ['UPDATE_CONTRACTS_SHAPE', 'update_contracts[3].contract'],
      ],
    );
    expect(j.repair).toMatch(/handoff evidence add/);
    for (const value of [null, []]) {
      const [h, i] = homeWith('BLOCKED', { update_contracts: value });
      expect(finalize(h, '--draft-id', i).json).toMatchObject({ created: true, evidence_inserted: 0 });
    }
  });

  it('SECTION_NOT_WRITABLE outside the dispatch --can-write list; any section without a list', () => {
    const uc = [
      { contract: 'api_spec', payload: { a: 1 } },
      { contract: 'notes', payload: {} },
    ];
    const [home, id] = homeWith('BLOCKED', { update_contracts: uc });
    seedRow(home, { contract_id: id, can_write: ['api_spec'] });
    expectListRejection(home, ['--draft-id', id], [['SECTION_NOT_WRITABLE', 'update_contracts[1].contract']]);
    const [home2, id2] = homeWith('BLOCKED', { update_contracts: uc });
    const r = finalize(home2, '--draft-id', id2);
    expect(r.json).toMatchObject({ status: 'ok', created: true });
    expect(JSON.parse(rowOf(home2, id2)!.raw_handoff_json).update_contracts).toEqual(uc);
  });

  it('evidence entries: static errors at step 9, unknown brief at step 10, inserted once on success', () => {
    const home = tempHome();
    const brief = runJson(home, [
      'brief',
      'add',
      'billing',
      '--ac',
      'AC-1=refunds are idempotent',
      '--workspace',
      'ws',
    ]).json;
    expect(brief.status).toBe('ok');
    const briefId = brief.brief.id as number;
    const id = mintDraft();
    const bad = [{ contract: 'evidence', payload: { brief_id: '7', ac_id: 'AC-1', type: 'text', text: 'x' } }];
    writeDraft(home, id, envelopeIn(prefix(id), 'BLOCKED', { update_contracts: bad }));
    expectListRejection(home, ['--draft-id', id], [['EVIDENCE_PAYLOAD', 'update_contracts[0].payload.brief_id']]);

    const unknown = [
      { contract: 'evidence', payload: { brief_id: briefId + 100, ac_id: 'AC-1', type: 'text', text: 'x' } },
    ];
    writeDraft(home, id, envelopeIn(prefix(id), 'BLOCKED', { update_contracts: unknown }));
    expectListRejection(
      home,
      ['--draft-id', id, '--workspace', 'ws'],
      [['EVIDENCE_BRIEF_NOT_FOUND', 'update_contracts[0].payload.brief_id']],
    );
    expect(countRows(home)).toBe(0);

    const good = [
      { contract: 'notes', payload: {} },
      {
        contract: 'evidence',
        payload: { brief_id: briefId, ac_id: 'AC-1', type: 'command_output', text: 'PASS 14 tests' },
      },
    ];
    writeDraft(home, id, envelopeIn(prefix(id), 'BLOCKED', { update_contracts: good }));
    const ok = finalize(home, '--draft-id', id, '--workspace', 'ws');
    expect(ok.json).toMatchObject({ status: 'ok', created: true, evidence_inserted: 1, workspace: 'ws' });
    const again = finalize(home, '--draft-id', id, '--workspace', 'ws');
    expect(again.json).toMatchObject({ created: false, unchanged_reason: 'identical', evidence_inserted: 0 });
    const rows = withStore(home, (db) => db.prepare('SELECT handoff_id, ac_id, text, size_bytes FROM evidence').all());
    expect(rows).toEqual([{ handoff_id: ok.json.handoff_id, ac_id: 'AC-1', text: 'PASS 14 tests', size_bytes: 13 }]);
  });
});

describe('finalize: writing the row', () => {
  it('inserts a clean row from the canonical envelope; the draft file is untouched; DB file 0600', () => {
    const home = tempHome();
    const id = mintDraft();
    const e = envelopeIn(prefix(id), 'COMPLETE');
    e.agent_status.agent_state = 'complete';
    e.evidence_report.verification.result = ' PASS ';
    writeDraft(home, id, e);
    const draftBytes = readFileSync(draftPath(home, id));
    const r = finalize(home, '--draft-id', id, '--workspace', 'billing-api');
    expect(r.code).toBe(0);
    expect(r.json).toEqual({
      status: 'ok',
      created: true,
      draft_id: id,
      contract_id: id,
      handoff_id: r.json.handoff_id,
      agent_state: 'COMPLETE',
      workspace: 'billing-api',
      evidence_inserted: 0,
    });
    const row = rowOf(home, id)!;
    expect(row).toMatchObject({
      agent_id: prefix(id),
      agent_state: 'COMPLETE',
      cut_reason: null,
      workspace: 'billing-api',
      plan_task_id: null,
    });
    const stored = JSON.parse(row.raw_handoff_json);
    expect(stored.agent_status.agent_state).toBe('COMPLETE');
    expect(stored.evidence_report.verification.result).toBe('pass');
    expect(row.raw_handoff_json).toBe(JSON.stringify(stored));
    expect(readFileSync(draftPath(home, id)).equals(draftBytes)).toBe(true);
    expect(statSync(dbFile(home)).mode & 0o777).toBe(0o600);
  });

  it('prints the human success lines', () => {
    const [home, id] = homeWith('BLOCKED');
    const r = run(home, ['contract', 'finalize', '--draft-id', id]);
    expect(r.stdout).toMatch(new RegExp(`^OK: draft ${id} finalized \\(handoff_id=\\d+, state=BLOCKED\\)\\.\\n$`));
    const again = run(home, ['contract', 'finalize', '--draft-id', id]);
    expect(again.stdout).toMatch(
      new RegExp(`^OK: draft ${id} already finalized \\(handoff_id=\\d+, state=BLOCKED\\); no-op\\.\\n$`),
    );
  });

  it('removes the capture markers degraded, auto_captured and backstop from the persisted envelope only', () => {
    const [home, id] = homeWith('BLOCKED', {
      degraded: true,
      auto_captured: true,
      backstop: { reason: 'x' },
      reaped: 1,
    });
    expect(finalize(home, '--draft-id', id).json.created).toBe(true);
    const stored = JSON.parse(rowOf(home, id)!.raw_handoff_json);
    expect(Object.keys(stored)).not.toContain('degraded');
    expect(Object.keys(stored)).not.toContain('auto_captured');
    expect(Object.keys(stored)).not.toContain('backstop');
    expect(stored.reaped).toBe(1);
    expect(readDraftFile(home, id).degraded).toBe(true);
  });

  it('an identical repeat is a no-op on every state; a changed envelope converges a non-COMPLETE row', () => {
    const [home, id] = homeWith('BLOCKED');
    const first = finalize(home, '--draft-id', id).json;
    const again = finalize(home, '--draft-id', id).json;
    expect(again).toMatchObject({
      created: false,
      unchanged_reason: 'identical',
      handoff_id: first.handoff_id,
      agent_state: 'BLOCKED',
    });
    writeDraft(home, id, envelopeIn(prefix(id), 'NEEDS_INPUT'));
    const converged = finalize(home, '--draft-id', id).json;
    expect(converged).toMatchObject({ created: true, handoff_id: first.handoff_id, agent_state: 'NEEDS_INPUT' });
    expect(countRows(home)).toBe(1);
  });

  it('COMPLETE is write-once: a later finalize with another envelope is a no-op and changes nothing', () => {
    const [home, id] = homeWith('COMPLETE');
    const first = finalize(home, '--draft-id', id).json;
    const rowBefore = rowOf(home, id);
    const e = envelopeIn(prefix(id), 'BLOCKED');
    writeDraft(home, id, e);
    const r = finalize(home, '--draft-id', id);
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({
      created: false,
      unchanged_reason: 'complete_write_once',
      handoff_id: first.handoff_id,
      agent_state: 'COMPLETE',
    });
    expect(rowOf(home, id)).toEqual(rowBefore);
  });

  it('converges a dispatched row: cut_reason cleared, bindings and workspace kept, plan task set once', () => {
    const [home, id] = homeWith('NEEDS_VERIFICATION');
    const rowId = seedRow(home, { contract_id: id, workspace: 'frozen-ws', kind: 'investigation', consolidation: 0 });
    const r = finalize(home, '--draft-id', id, '--workspace', 'other', '--plan-task-id', 'T-7');
    expect(r.json).toMatchObject({
      created: true,
      handoff_id: rowId,
      workspace: 'frozen-ws',
      agent_state: 'NEEDS_VERIFICATION',
    });
    expect(rowOf(home, id)).toMatchObject({
      cut_reason: null,
      kind: 'investigation',
      plan_task_id: 'T-7',
      goal: 'goal',
    });
    // The binding now exists: the same flag is no new binding (identical), another one conflicts.
    expect(finalize(home, '--draft-id', id, '--plan-task-id', 'T-7').json).toMatchObject({
      created: false,
      unchanged_reason: 'identical',
    });
    expect(finalize(home, '--draft-id', id, '--plan-task-id', 'T-8').json.code).toBe('PLAN_TASK_CONFLICT');
  });

  it('materializes a missing draft from its open row (no draft file written)', () => {
    const home = tempHome();
    const id = mintDraft();
    seedRow(home, {
      contract_id: id,
      agent_state: 'IN_PROGRESS',
      raw: envelopeIn(prefix(id), 'BLOCKED', { degraded: true }),
    });
    const r = finalize(home, '--draft-id', id);
    expect(r.json).toMatchObject({ status: 'ok', created: true, agent_state: 'BLOCKED' });
    expect(existsSync(draftPath(home, id))).toBe(false);
    expect(rowOf(home, id)).toMatchObject({ cut_reason: null });
    expect(JSON.parse(rowOf(home, id)!.raw_handoff_json).degraded).toBeUndefined();
  });

  it('a repeat still succeeds after the cited approval was decided (the no-op probe answers first)', () => {
    const home = tempHome();
    const ap = runJson(home, ['approval', 'request', '--content', 'deploy']).json.approval_id as string;
    const id = mintDraft();
    writeDraft(
      home,
      id,
      envelopeIn(prefix(id), 'APPROVAL_REQUEST', { approval_request: { exact_content: 'deploy', approval_id: ap } }),
    );
    expect(finalize(home, '--draft-id', id).json.created).toBe(true);
    runJson(home, ['approval', 'decide', ap, '--decision', 'approved']);
    expect(finalize(home, '--draft-id', id).json).toMatchObject({
      status: 'ok',
      created: false,
      unchanged_reason: 'identical',
    });
  });

  it('follows the chain to the live tip and reports followed_from; never opens a link', () => {
    const [home, id] = homeWith('COMPLETE');
    finalize(home, '--draft-id', id);
    const add = runJson(home, ['contract', 'add', 'evidence_report.open_gaps', 'more', '--draft-id', id]);
    const link = add.json.continuation.contract_id as string;
    const e = readDraftFile(home, link);
    e.agent_status.agent_state = 'BLOCKED';
    writeDraft(home, link, e);
    const r = finalize(home, '--draft-id', id);
    expect(r.json).toMatchObject({ created: true, draft_id: link, followed_from: id, agent_state: 'BLOCKED' });
    expect(countRows(home)).toBe(2);
    const again = finalize(home, '--draft-id', link);
    expect(again.json).toMatchObject({ created: false });
    expect(again.json.followed_from).toBeUndefined();
    expect(countRows(home)).toBe(2);
  });
});

describe('finalize: concurrency and crashes', () => {
  it('8 processes finalizing one draft: one row, one handoff_id, exactly one created:true, evidence once, all exit 0', async () => {
    const home = tempHome();
    const briefId = runJson(home, ['brief', 'add', 'race', '--workspace', 'ws']).json.brief.id as number;
    const id = mintDraft();
    const uc = [{ contract: 'evidence', payload: { brief_id: briefId, ac_id: 'AC-1', type: 'text', text: 'ok' } }];
    writeDraft(home, id, envelopeIn(prefix(id), 'COMPLETE', { update_contracts: uc }));
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        runAsync(home, ['contract', 'finalize', '--draft-id', id, '--workspace', 'ws', '--json']),
      ),
    );
    expect(results.map((r) => r.code)).toEqual(Array(8).fill(0));
    expect(results.filter((r) => r.json.created === true)).toHaveLength(1);
    expect(new Set(results.map((r) => r.json.handoff_id)).size).toBe(1);
    for (const r of results.filter((x) => x.json.created === false)) {
      expect(['identical', 'complete_write_once']).toContain(r.json.unchanged_reason);
    }
    expect(countRows(home)).toBe(1);
    expect(countRows(home, 'evidence')).toBe(1);
  });

  it('finalizers killed with SIGKILL at random moments leave an intact store: every row whole or absent', async () => {
    const home = tempHome();
    const briefId = runJson(home, ['brief', 'add', 'crash', '--workspace', 'ws']).json.brief.id as number;
    const N = 56;
    const ids = Array.from({ length: N }, () => mintDraft());
    const expected = new Map<string, Record<string, unknown>>();
    ids.forEach((id, i) => {
      const uc = [
        { contract: 'evidence', payload: { brief_id: briefId, ac_id: 'AC-1', type: 'text', text: `run ${i}` } },
        { contract: 'evidence', payload: { brief_id: briefId, ac_id: 'AC-2', type: 'text', text: `second ${i}` } },
      ];
      const e = envelopeIn(prefix(id), i % 2 === 0 ? 'BLOCKED' : 'COMPLETE', { update_contracts: uc });
      writeDraft(home, id, e);
      expected.set(id, e);
    });
    const killAt = (id: string): Promise<void> =>
      new Promise((resolve) => {
        const child = spawn(
          process.execPath,
          [BIN, 'contract', 'finalize', '--draft-id', id, '--workspace', 'ws', '--json'],
          {
            env: { ...process.env, HANDOFF_HOME: home, HANDOFF_DB: undefined },
            stdio: 'ignore',
          },
        );
        const timer = setTimeout(() => child.kill('SIGKILL'), 30 + Math.floor(Math.random() * 870));
        child.on('exit', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    for (let i = 0; i < N; i += 8) await Promise.all(ids.slice(i, i + 8).map(killAt));

    const check = (): void =>
      withStore(home, (db) => {
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
        expect(db.pragma('foreign_key_check')).toEqual([]);
        for (const id of ids) {
          const row = db.prepare('SELECT * FROM handoffs WHERE contract_id = ?').get(id) as any;
          const evidence = db
            .prepare(
              'SELECT COUNT(*) AS n FROM evidence e JOIN handoffs h ON h.id = e.handoff_id WHERE h.contract_id = ?',
            )
            .get(id) as { n: number };
          if (row === undefined) {
            expect(evidence.n).toBe(0);
            continue;
          }
          const stored = JSON.parse(row.raw_handoff_json);
          expect(stored).toEqual(JSON.parse(JSON.stringify(expected.get(id))));
          expect(row.agent_state).toBe(stored.agent_status.agent_state);
          expect(row.cut_reason).toBeNull();
          expect(evidence.n).toBe(2);
        }
      });
    check();
    // Nothing was left half-done: every draft now finalizes (stale locks of the killed processes are broken).
    for (let i = 0; i < N; i += 8) {
      const batch = await Promise.all(
        ids
          .slice(i, i + 8)
          .map((id) => runAsync(home, ['contract', 'finalize', '--draft-id', id, '--workspace', 'ws', '--json'])),
      );
      expect(batch.map((r) => r.code)).toEqual(batch.map(() => 0));
    }
    check();
    expect(countRows(home)).toBe(N);
  });
});
