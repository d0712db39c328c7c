/**
 * Evidence linked to a contract: `evidence add --draft-id` stores evidence.contract_id (handoff_id stays finalize's),
 * and `evidence list --contract-id` filters by it, with or without --brief.
 */
import { describe, expect, it } from 'vitest';
import { run, snapshot, tempHome } from '../helpers/cli.js';
import { initDraft } from '../helpers/drafts.js';
import { mintDraft, runJson, withStore } from '../helpers/store-cli.js';

const ENV = { HANDOFF_WORKSPACE: 'ws' };
function ok(home: string, args: string[]): any {
  const r = runJson(home, args, ENV);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  return r.json;
}

describe('evidence add --draft-id and evidence list --contract-id', () => {
  it('links the row to the contract and lists by it; handoff_id stays null', () => {
    const home = tempHome();
    const a = initDraft(home);
    const b = initDraft(home);
    ok(home, ['brief', 'add', 'pay', '--ac', 'AC-1=x', '--ac', 'AC-2=y']);
    ok(home, ['brief', 'add', 'ship']);
    const e1 = ok(home, [
      'evidence',
      'add',
      '--brief',
      'pay',
      '--ac',
      'AC-1',
      '--type',
      'text',
      '--text',
      'one',
      '--draft-id',
      a,
    ]).evidence;
    ok(home, ['evidence', 'add', '--brief', 'pay', '--ac', 'AC-2', '--type', 'text', '--text', 'two', '--draft-id', b]);
    const e3 = ok(home, [
      'evidence',
      'add',
      '--brief',
      'ship',
      '--ac',
      'AC-9',
      '--type',
      'text',
      '--text',
      'three',
      '--draft-id',
      a,
    ]).evidence;
    ok(home, ['evidence', 'add', '--brief', 'pay', '--ac', 'AC-1', '--type', 'text', '--text', 'unlinked']);
    expect([e1.contract_id, e1.handoff_id]).toEqual([a, null]);
    expect(withStore(home, (db) => db.prepare('SELECT contract_id FROM evidence ORDER BY id').all())).toEqual([
      { contract_id: a },
      { contract_id: b },
      { contract_id: a },
      { contract_id: null },
    ]);

    const byContract = ok(home, ['evidence', 'list', '--contract-id', a]);
    expect(byContract.evidence.map((e: any) => e.id)).toEqual([e1.id, e3.id]);
    expect([byContract.brief, byContract.brief_id, byContract.contract_id, byContract.count]).toEqual([
      null,
      null,
      a,
      2,
    ]);
    const both = ok(home, ['evidence', 'list', '--brief', 'pay', '--contract-id', a]);
    expect(both.evidence.map((e: any) => e.text)).toEqual(['one']);
    expect(ok(home, ['evidence', 'list', '--brief', 'pay']).evidence).toHaveLength(3);
    const human = run(home, ['evidence', 'list', '--contract-id', a], { env: ENV });
    expect(human.stdout).toContain('showing 2');
  });

  it('refusals: a malformed id (exit 2), a contract with no draft and no row (exit 3); nothing written', () => {
    const home = tempHome();
    initDraft(home);
    ok(home, ['brief', 'add', 'pay']);
    const before = snapshot(home);
    const bad = runJson(
      home,
      ['evidence', 'add', '--brief', 'pay', '--ac', 'AC-1', '--type', 'text', '--text', 'x', '--draft-id', '../etc'],
      ENV,
    );
    expect([bad.code, bad.json.code]).toEqual([2, 'INVALID_DRAFT_ID']);
    const missing = runJson(
      home,
      ['evidence', 'add', '--brief', 'pay', '--ac', 'AC-1', '--type', 'text', '--text', 'x', '--draft-id', mintDraft()],
      ENV,
    );
    expect([missing.code, missing.json.code]).toEqual([3, 'DRAFT_NOT_FOUND']);
    expect(snapshot(home)).toEqual(before);
    const list = runJson(home, ['evidence', 'list'], ENV);
    expect([list.code, list.json.code]).toEqual([2, 'USAGE']);
    const acAlone = runJson(home, ['evidence', 'list', '--ac', 'AC-1', '--contract-id', mintDraft()], ENV);
    expect([acAlone.code, acAlone.json.code]).toEqual([2, 'USAGE']);
    const badList = runJson(home, ['evidence', 'list', '--contract-id', 'x'], ENV);
    expect([badList.code, badList.json.code]).toEqual([2, 'INVALID_DRAFT_ID']);
  });

  it('--contract-id without a store lists nothing (exit 0) and creates nothing', () => {
    const home = tempHome();
    const before = snapshot(home);
    const r = ok(home, ['evidence', 'list', '--contract-id', mintDraft()]);
    expect(r.count).toBe(0);
    expect(snapshot(home)).toEqual(before);
  });
});
