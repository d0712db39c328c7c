/** Draft verbs over a store: adoption, continuation, mirror, bindings and store errors. */
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSqlite } from '../../src/store/sqlite.js';
import { BIN, run, snapshot, tempHome } from '../helpers/cli.js';
import {
  closeDraft,
  completeWrites,
  dbOf,
  dispatch,
  draftPathOf,
  initDraft,
  readDraftJson,
  runUnchanged,
} from '../helpers/drafts.js';

/** One SQL statement on the test's store (to stage rows the verbs under test then read). */
function sql<T = unknown>(home: string, text: string, ...params: unknown[]): T {
  const Database = loadSqlite();
  const db = new Database(dbOf(home));
  try {
    const stmt = db.prepare(text);
    return (stmt.reader ? stmt.all(...params) : stmt.run(...params)) as T;
  } finally {
    db.close();
  }
}

const rowOf = (home: string, id: string): any =>
  sql<any[]>(home, 'SELECT * FROM handoffs WHERE contract_id = ?', id)[0];
const rowCount = (home: string): number => sql<any[]>(home, 'SELECT count(*) AS n FROM handoffs')[0].n;

describe('adoption of a dispatched row', () => {
  it('acceptance 14: validate → 3; view materializes (adopted); set after deleting again materializes and writes', () => {
    const home = tempHome();
    const { id } = dispatch(home);
    rmSync(draftPathOf(home, id));
    const v = runUnchanged(home, ['contract', 'validate', '--draft-id', id, '--json']);
    expect([v.code, v.json.code]).toEqual([3, 'DRAFT_NOT_FOUND']);
    expect(v.json.error).toMatch(/view/);

    const shown = run(home, ['contract', 'view', '--draft-id', id, '--json']);
    expect(shown.code).toBe(0);
    expect(shown.json).toMatchObject({ status: 'ok', draft_id: id, envelope_source: 'draft', adopted: true });
    expect(shown.stderr).toMatch(/^\[ADOPTED\] /);
    expect(readDraftJson(home, id)).toEqual(JSON.parse(rowOf(home, id).raw_handoff_json));
    expect(run(home, ['contract', 'view', '--draft-id', id, '--json']).json.adopted).toBeUndefined();

    rmSync(draftPathOf(home, id));
    const w = run(home, ['contract', 'set', 'report_prose', 'hello', '--draft-id', id, '--json']);
    expect(w.code).toBe(0);
    expect(w.json).toEqual({ status: 'ok', draft_id: id, mirrored: true, adopted: true });
    expect(w.stderr).toMatch(/^\[ADOPTED\] /);
    expect(readDraftJson(home, id).report_prose).toBe('hello');
    expect(JSON.parse(rowOf(home, id).raw_handoff_json)).toEqual(readDraftJson(home, id));
  });

  it('a rejected first write on an adopted row leaves no draft', () => {
    const home = tempHome();
    const { id } = dispatch(home);
    rmSync(draftPathOf(home, id));
    const r = runUnchanged(home, [
      'contract',
      'set',
      'agent_status.agent_state',
      'COMPLETE',
      '--draft-id',
      id,
      '--json',
    ]);
    expect(r.code).toBe(1);
    expect(r.json.draft_id).toBe(id);
  });

  it('materializes the stored envelope verbatim when it has evidence_report (system keys included), else the seed', () => {
    const home = tempHome();
    const { id } = dispatch(home);
    rmSync(draftPathOf(home, id));
    const stored = { ...JSON.parse(rowOf(home, id).raw_handoff_json), degraded: true, auto_captured: 'x' };
    sql(home, 'UPDATE handoffs SET raw_handoff_json = ? WHERE contract_id = ?', JSON.stringify(stored), id);
    expect(run(home, ['contract', 'view', '--draft-id', id, '--json']).json.envelope).toEqual(stored);
    const other = dispatch(home).id;
    rmSync(draftPathOf(home, other));
    sql(home, 'UPDATE handoffs SET raw_handoff_json = ? WHERE contract_id = ?', '{"agent_status":{}}', other);
    const seeded = run(home, ['contract', 'view', '--draft-id', other, '--json']).json.envelope;
    expect(seeded.agent_status).toEqual({
      agent_state: 'IN_PROGRESS',
      agent_id: other.split('.')[0],
      pending_steps: [],
      next_action: 'pending',
    });
  });

  it('a present but unreadable draft is never adopted over', () => {
    const home = tempHome();
    const { id } = dispatch(home);
    writeFileSync(draftPathOf(home, id), '[');
    for (const args of [['view'], ['set', 'report_prose', 'x'], ['validate']]) {
      expect(runUnchanged(home, ['contract', ...args, '--draft-id', id, '--json']).json.code).toBe('DRAFT_UNREADABLE');
    }
  });
});

describe('continuation after a close', () => {
  it('acceptance 10: add to a finalized COMPLETE draft opens a link; the old id keeps landing on it', () => {
    const home = tempHome();
    const id = initDraft(home);
    for (const args of completeWrites(id)) expect(run(home, args).code).toBe(0);
    const f = run(home, ['contract', 'finalize', '--draft-id', id, '--json']);
    expect(f.json.agent_state).toBe('COMPLETE');
    const closedBytes = readFileSync(draftPathOf(home, id), 'utf8');
    const closedRow = rowOf(home, id);

    const r = run(home, ['contract', 'add', 'evidence_report.commands_run', 'late', '--draft-id', id, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const link = r.json.draft_id as string;
    expect(link).not.toBe(id);
    expect(link.split('.')[0]).toBe(id.split('.')[0]);
    expect(link).toMatch(/^a[0-9a-f]{16}\.[0-9a-f]{12}$/);
    expect(r.json).toMatchObject({
      status: 'ok',
      mirrored: true,
      continuation: {
        status: 'opened',
        contract_id: link,
        continues_contract_id: id,
        continues_handoff_id: closedRow.id,
        continues_state: 'COMPLETE',
      },
    });
    expect(r.json.continuation.handoff_id).toBe(rowOf(home, link).id);
    expect(r.stderr).toMatch(
      new RegExp(`^\\[CONTINUATION opened\\] ${id}.*COMPLETE.*${link}.*handoff contract chain --contract-id ${link}`),
    );
    expect(readFileSync(draftPathOf(home, id), 'utf8')).toBe(closedBytes);
    expect(rowOf(home, id)).toEqual(closedRow);

    const linkRow = rowOf(home, link);
    expect([linkRow.agent_state, linkRow.cut_reason, linkRow.continues_handoff_id]).toEqual([
      'DISPATCHED',
      'never_finalized',
      closedRow.id,
    ]);
    const draft = readDraftJson(home, link);
    expect(draft.continues_contract_id).toBe(id);
    expect(draft.evidence_report.commands_run).toEqual(['late']);
    expect(draft.evidence_report.verification).toBeUndefined();
    expect(JSON.parse(linkRow.raw_handoff_json)).toEqual(draft);

    const again = run(home, ['contract', 'add', 'evidence_report.commands_run', 'later', '--draft-id', id, '--json']);
    expect(again.json).toEqual({ status: 'ok', draft_id: link, mirrored: true });
    expect(readDraftJson(home, link).evidence_report.commands_run).toEqual(['late', 'later']);
    expect(readFileSync(draftPathOf(home, id), 'utf8')).toBe(closedBytes);
    expect(rowCount(home)).toBe(2);
    // view and validate never follow the chain.
    expect(run(home, ['contract', 'view', '--draft-id', id, '--json']).json.envelope.agent_status.agent_state).toBe(
      'COMPLETE',
    );
  });

  it('a closed link opens the next one; a fill on a link never collides', () => {
    const home = tempHome();
    const id = initDraft(home);
    run(home, ['contract', 'add', 'evidence_report.commands_run', 'a', '--draft-id', id]);
    closeDraft(home, id);
    const l1 = run(home, [
      'contract',
      'fill',
      '--draft-id',
      id,
      '--json',
      '{"evidence_report":{"commands_run":["b"]}}',
    ]).json;
    expect(l1.continuation.continues_contract_id).toBe(id);
    closeDraft(home, l1.draft_id);
    const l2 = run(home, ['contract', 'set', 'report_prose', 'x', '--draft-id', id, '--json']).json;
    expect(l2.continuation).toMatchObject({ continues_contract_id: l1.draft_id });
    expect(rowCount(home)).toBe(3);
  });

  it('a rejected write to a closed contract opens nothing; its draft_id is the closed tip', () => {
    const home = tempHome();
    const id = initDraft(home);
    closeDraft(home, id);
    const before = snapshot(home);
    const r = run(home, ['contract', 'set', 'agent_status.agent_state', 'COMPLETE', '--draft-id', id, '--json']);
    expect(r.code).toBe(1);
    expect(r.json).toMatchObject({ status: 'rejected', draft_id: id });
    expect(rowCount(home)).toBe(1);
    const after = snapshot(home);
    expect(Object.keys(after).filter((k) => k.startsWith('drafts/'))).toEqual(
      Object.keys(before).filter((k) => k.startsWith('drafts/')),
    );
    expect(after[`drafts/${id}.json`]).toEqual(before[`drafts/${id}.json`]);
  });
});

describe('mirror', () => {
  it('no row → mirrored false, no_row, silent; a store is never created by a write', () => {
    const home = tempHome();
    dispatch(home);
    const id = initDraft(home);
    const r = run(home, ['contract', 'set', 'report_prose', 'x', '--draft-id', id, '--json']);
    expect(r.json).toEqual({ status: 'ok', draft_id: id, mirrored: false, mirror_skipped_reason: 'no_row' });
    expect(r.stderr).toBe('');
    const fresh = tempHome();
    const other = initDraft(fresh);
    run(fresh, ['contract', 'set', 'report_prose', 'x', '--draft-id', other]);
    expect(Object.keys(snapshot(fresh)).some((k) => k.includes('handoff.db'))).toBe(false);
  });
});

describe('a store without the handoffs table', () => {
  it('counts as "no rows": writes succeed with no_row, the file is neither migrated nor changed', () => {
    const home = tempHome();
    const id = initDraft(home);
    writeFileSync(dbOf(home), '');
    const r = run(home, ['contract', 'add', 'evidence_report.commands_run', 'x', '--draft-id', id, '--json']);
    expect(r.json).toEqual({ status: 'ok', draft_id: id, mirrored: false, mirror_skipped_reason: 'no_row' });
    expect(readFileSync(dbOf(home), 'utf8')).toBe('');
    expect(runUnchanged(home, ['contract', 'validate', '--draft-id', id]).code).toBe(0);
  });
});

describe('bindings and the cross-check', () => {
  it("the row's consolidation mark binds writes and validate; it wins over --consolidation", () => {
    const home = tempHome();
    const marked = dispatch(home, ['--consolidation']).id;
    const r = runUnchanged(home, [
      'contract',
      'set',
      'agent_status.agent_state',
      'BLOCKED',
      '--draft-id',
      marked,
      '--json',
    ]);
    expect([r.code, r.json.codes]).toEqual([1, ['CONSOLIDATION_REPORT_SHAPE']]);
    const plain = dispatch(home).id;
    expect(run(home, ['contract', 'set', 'agent_status.agent_state', 'BLOCKED', '--draft-id', plain]).code).toBe(0);
    expect(runUnchanged(home, ['contract', 'validate', '--draft-id', plain, '--consolidation']).code).toBe(0);
  });

  it('an approval id that is not pending is rejected at every write and by validate', () => {
    const home = tempHome();
    const { id } = dispatch(home);
    const r = runUnchanged(home, [
      'contract',
      'set',
      'approval_request.approval_id',
      'P-nope',
      '--draft-id',
      id,
      '--json',
      '--explain',
    ]);
    expect([r.code, r.json.codes]).toEqual([1, ['APPROVAL_ID_NOT_PENDING']]);
    expect(r.json.repair).toMatch(/pending/);
    const file = join(home, 'env.json');
    writeFileSync(file, JSON.stringify({ ...readDraftJson(home, id), approval_request: { approval_id: 'P-nope' } }));
    expect(run(home, ['contract', 'validate', '--file', file, '--json']).json.codes).toEqual([
      'APPROVAL_ID_NOT_PENDING',
    ]);
    const noStore = tempHome();
    const d = initDraft(noStore);
    expect(run(noStore, ['contract', 'set', 'approval_request.approval_id', 'P-nope', '--draft-id', d]).code).toBe(0);
  });
});

describe('view of a closed row without a draft', () => {
  it('shows the stored envelope read-only; a non-object envelope → ROW_ENVELOPE_UNREADABLE', () => {
    const home = tempHome();
    const id = initDraft(home);
    closeDraft(home, id);
    rmSync(draftPathOf(home, id));
    const row = rowOf(home, id);
    const r = runUnchanged(home, ['contract', 'view', '--draft-id', id, '--json']);
    expect(r.json).toEqual({
      status: 'ok',
      draft_id: id,
      envelope_source: 'row',
      handoff_id: row.id,
      agent_state: 'BLOCKED',
      cut_reason: null,
      envelope: JSON.parse(row.raw_handoff_json),
    });
    expect(
      runUnchanged(home, ['contract', 'view', '--draft-id', id, '--field', 'agent_status.agent_state']).stdout,
    ).toBe('"BLOCKED"\n');
    expect(runUnchanged(home, ['contract', 'validate', '--draft-id', id, '--json']).json.code).toBe('DRAFT_NOT_FOUND');
    sql(home, 'UPDATE handoffs SET raw_handoff_json = ? WHERE contract_id = ?', '[1]', id);
    const bad = runUnchanged(home, ['contract', 'view', '--draft-id', id, '--json']);
    expect([bad.code, bad.json.code, bad.json.handoff_id]).toEqual([3, 'ROW_ENVELOPE_UNREADABLE', row.id]);
  });
});

describe('store errors (exit 4)', () => {
  it('an unreadable store is STORE_UNREADABLE for every verb that needs it, and nothing is written', () => {
    const home = tempHome();
    const id = initDraft(home);
    writeFileSync(
      dbOf(home),
      'this is not a sqlite database, just text that is long enough to be read as a header.....',
    );
    for (const args of [
      ['set', 'report_prose', 'x', '--json'],
      ['add', 'evidence_report.commands_run', 'x', '--json'],
      ['fill', '--json', '{}'],
      ['validate', '--json'],
    ]) {
      const r = runUnchanged(home, ['contract', ...args, '--draft-id', id]);
      expect([r.code, r.json.code], args.join(' ')).toEqual([4, 'STORE_UNREADABLE']);
    }
    // view of an existing draft file needs no row; init never opens the store.
    expect(runUnchanged(home, ['contract', 'view', '--draft-id', id, '--json']).code).toBe(0);
    expect(run(home, ['contract', 'init', '--json']).code).toBe(0);
  });

  it('DRAFT_WRITE_FAILED (exit 4) when the save fails: the old draft, no temp file, no lock remain', () => {
    const home = tempHome();
    const id = initDraft(home);
    const before = snapshot(home);
    const big = 'x'.repeat(4000);
    // A 2 KB file-size limit (SIGXFSZ ignored) makes the write of the temp file fail with EFBIG after the lock.
    const script = `trap '' XFSZ; ulimit -f 2; exec "${process.execPath}" "${BIN}" contract set report_prose ${big} --draft-id ${id} --json`;
    const env: NodeJS.ProcessEnv = { ...process.env, HANDOFF_HOME: home };
    delete env.HANDOFF_DB;
    const out = spawnSync('bash', ['-c', script], { cwd: home, env, encoding: 'utf8' });
    expect(out.status).toBe(4);
    expect(JSON.parse(out.stdout)).toMatchObject({ status: 'error', code: 'DRAFT_WRITE_FAILED', draft_id: id });
    expect(snapshot(home)).toEqual(before);
  });
});
