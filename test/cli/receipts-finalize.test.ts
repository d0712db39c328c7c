import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  closeWith,
  fillClose,
  freshHome,
  gitRepo,
  hf,
  newDraft,
  nodeCmd,
  receipt,
  snapshot,
} from '../helpers/receipts-cli.js';

const V = 'evidence_report.verification';
const pairs = (r: { json: any }): [string, string][] => (r.json.errors ?? []).map((e: any) => [e.code, e.path]);

/** A draft with one passing receipt of `npm test`-like command `cmd` (argv), recorded in `cwd`. */
function withReceipt(opts: { cwd?: string; argv?: string[] } = {}) {
  const home = freshHome();
  const d = newDraft(home);
  const { receipt: rc } = receipt(home, d, opts.argv ?? nodeCmd('console.log("ok")'), { cwd: opts.cwd });
  return { home, d, rc };
}

function expectRejectedUnwritten(home: string, before: ReturnType<typeof snapshot>, r: { code: number; json: any }) {
  expect(r.code).toBe(1);
  expect(r.json.status).toBe('rejected');
  expect(typeof r.json.repair).toBe('string');
  expect(r.json.repair).toContain('evidence run');
  expect(snapshot(home)).toEqual(before);
  expect(hf(home, ['contract', 'list', '--json']).json.count).toBe(0);
}

describe('finalize step 9b: receipt checks', () => {
  it('a matching passing receipt of the contract finalizes', () => {
    const { home, d, rc } = withReceipt();
    const r = closeWith(home, d, {
      type: 'command',
      command: ` ${rc.command} `,
      result: 'pass',
      receipt: rc.receipt_id,
    });
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ status: 'ok', created: true, agent_state: 'COMPLETE' });
  });

  it('RECEIPT_NOT_FOUND: an unknown id, also without any DB file', () => {
    const home = freshHome();
    const d = newDraft(home);
    const verification = {
      type: 'command',
      command: 'npm test',
      result: 'pass',
      receipt: 'R-0123456789abcdef',
      receipts: ['R-00000000000000aa'],
    };
    const r = closeWith(home, d, verification);
    expect(pairs(r)).toEqual([
      ['RECEIPT_NOT_FOUND', `${V}.receipt`],
      ['RECEIPT_NOT_FOUND', `${V}.receipts[0]`],
    ]);
    expect(r.json.codes).toEqual(['RECEIPT_NOT_FOUND']);
    expect(existsSync(join(home, 'handoff.db'))).toBe(false);
  });

  it("RECEIPT_FOREIGN: another contract's receipt", () => {
    const { home, rc } = withReceipt();
    const other = newDraft(home);
    fillClose(home, other, { type: 'command', command: rc.command, result: 'pass', receipt: rc.receipt_id });
    const before = snapshot(home);
    const r = hf(home, ['contract', 'finalize', '--draft-id', other, '--json', '--explain']);
    expect(pairs(r)).toEqual([['RECEIPT_FOREIGN', `${V}.receipt`]]);
    expectRejectedUnwritten(home, before, r);
  });

  it('RECEIPT_TAMPERED: an edited output blob, and a row byte changed behind the triggers', () => {
    const home = freshHome();
    const d = newDraft(home);
    const big = receipt(home, d, nodeCmd('process.stdout.write("b".repeat(5000))')).receipt;
    const small = receipt(home, d, nodeCmd('0')).receipt;
    writeFileSync(big.stdout_path, 'c'.repeat(5000));
    const db = new Database(join(home, 'handoff.db'));
    db.exec('DROP TRIGGER receipts_no_update');
    db.prepare('UPDATE receipts SET duration_ms = duration_ms + 1 WHERE receipt_id = ?').run(small.receipt_id);
    db.close();
    const r = closeWith(home, d, {
      type: 'code',
      command: small.command,
      result: 'pass',
      receipt: big.receipt_id,
      receipts: [small.receipt_id],
    });
    // Both fail integrity, so no receipt remains for the later checks (no COMMAND_MISMATCH).
    expect(pairs(r)).toEqual([
      ['RECEIPT_TAMPERED', `${V}.receipt`],
      ['RECEIPT_TAMPERED', `${V}.receipts[0]`],
    ]);
  });

  it('RECEIPT_FAILED: the claim says pass, the receipt did not pass', () => {
    const home = freshHome();
    const d = newDraft(home);
    const rc = receipt(home, d, nodeCmd('process.exitCode = 1')).receipt;
    const r = closeWith(home, d, { type: 'command', command: rc.command, result: 'pass', receipt: rc.receipt_id });
    expect(pairs(r)).toEqual([['RECEIPT_FAILED', `${V}.receipt`]]);
    // An honest claim of the failure closes NEEDS_VERIFICATION.
    const ok = closeWith(
      home,
      d,
      { type: 'command', command: rc.command, result: 'fail', receipt: rc.receipt_id },
      { state: 'NEEDS_VERIFICATION' },
    );
    expect(ok.code).toBe(0);
  });

  it('RECEIPT_COMMAND_MISMATCH: no cited receipt ran verification.command (one error, first reference)', () => {
    const { home, d, rc } = withReceipt();
    const r = closeWith(home, d, {
      type: 'command',
      command: 'npm test',
      result: 'pass',
      receipts: [rc.receipt_id, rc.receipt_id],
    });
    expect(pairs(r)).toEqual([['RECEIPT_COMMAND_MISMATCH', `${V}.receipts[0]`]]);
  });

  it('RECEIPT_STALE after a file in the git work tree changes; --allow-stale skips it', () => {
    const repo = gitRepo();
    const { home, d, rc } = withReceipt({ cwd: repo, argv: nodeCmd('require("./app.js")') });
    expect(rc.git_head).toMatch(/^[0-9a-f]{40}$/);
    expect(rc.tree_fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(rc.cwd).toBe(repo);
    writeFileSync(join(repo, 'app.js'), 'console.log(2)\n');
    const verification = { type: 'command', command: rc.command, result: 'pass', receipt: rc.receipt_id };
    const r = closeWith(home, d, verification, { cwd: repo });
    expect(pairs(r)).toEqual([['RECEIPT_STALE', `${V}.receipt`]]);
    const allowed = hf(home, ['contract', 'finalize', '--draft-id', d, '--allow-stale', '--json'], { cwd: repo });
    expect(allowed.code).toBe(0);
    expect(allowed.json.created).toBe(true);
  });

  it('an unchanged tree is not stale; a receipt outside a git work tree is never stale', () => {
    const repo = gitRepo();
    const inRepo = withReceipt({ cwd: repo });
    expect(
      closeWith(inRepo.home, inRepo.d, {
        type: 'command',
        command: inRepo.rc.command,
        result: 'pass',
        receipt: inRepo.rc.receipt_id,
      }).code,
    ).toBe(0);
    const outside = withReceipt();
    expect(outside.rc.git_head).toBeNull();
    expect(outside.rc.tree_fingerprint).toBeNull();
  });

  it('a store inside the work tree does not make its own receipts stale', () => {
    const repo = gitRepo();
    const home = join(repo, '.handoff');
    mkdirSync(home);
    const d = newDraft(home);
    const rc = receipt(home, d, nodeCmd('0'), { cwd: repo }).receipt;
    expect(rc.tree_fingerprint).toMatch(/^[0-9a-f]{64}$/);
    // Draft writes, blobs and the DB all change below .handoff; the code did not change.
    expect(
      hf(home, ['contract', 'add', 'evidence_report.open_gaps', 'none', '--draft-id', d], { cwd: repo }).code,
    ).toBe(0);
    expect(
      closeWith(
        home,
        d,
        { type: 'command', command: rc.command, result: 'pass', receipt: rc.receipt_id },
        { cwd: repo },
      ).code,
    ).toBe(0);
  });

  it('RECEIPT_REQUIRED: a --require-receipt dispatch closing a command claim without a receipt', () => {
    const home = freshHome();
    const d = hf(home, ['contract', 'dispatch', '--goal', 'fix it', '--require-receipt', '--json']).json
      .contract_id as string;
    const r = closeWith(home, d, { type: 'command', command: 'npm test', result: 'pass' });
    expect(r.code).toBe(1);
    expect(pairs(r)).toEqual([['RECEIPT_REQUIRED', `${V}.receipt`]]);
    // A cited receipt satisfies it.
    const rc = receipt(home, d, nodeCmd('0')).receipt;
    const ok = closeWith(home, d, { type: 'command', command: rc.command, result: 'pass', receipt: rc.receipt_id });
    expect(ok.code).toBe(0);
    // --require-receipt is the policy receipt: a claim that is not command/code cannot close COMPLETE, and closes
    // NEEDS_VERIFICATION for a verifier.
    const d2 = hf(home, ['contract', 'dispatch', '--goal', 'review', '--require-receipt', '--json']).json
      .contract_id as string;
    const review = { type: 'self_review', reviewed: 'diff read', result: 'pass' };
    const refused = closeWith(home, d2, review);
    expect(refused.code).toBe(1);
    expect(pairs(refused)).toEqual([['RECEIPT_REQUIRED', `${V}.type`]]);
    expect(closeWith(home, d2, review, { state: 'NEEDS_VERIFICATION' }).code).toBe(0);
  });

  it('the errors of the step come together in the normative order', () => {
    const repo = gitRepo();
    const home = freshHome();
    const d = newDraft(home);
    const other = newDraft(home);
    const foreign = receipt(home, other, nodeCmd('0')).receipt;
    const failed = receipt(home, d, nodeCmd('process.exitCode = 2'), { cwd: repo }).receipt;
    writeFileSync(join(repo, 'untracked.txt'), 'new');
    const r = closeWith(home, d, {
      type: 'command',
      command: 'make check',
      result: 'pass',
      receipt: 'R-ffffffffffffffff',
      receipts: [foreign.receipt_id, failed.receipt_id],
    });
    expect(pairs(r)).toEqual([
      ['RECEIPT_NOT_FOUND', `${V}.receipt`],
      ['RECEIPT_FOREIGN', `${V}.receipts[0]`],
      ['RECEIPT_FAILED', `${V}.receipts[1]`],
      ['RECEIPT_COMMAND_MISMATCH', `${V}.receipts[1]`],
      ['RECEIPT_STALE', `${V}.receipts[1]`],
    ]);
    const human = hf(home, ['contract', 'finalize', '--draft-id', d]);
    expect(human.code).toBe(1);
    expect(human.stderr).toContain('RECEIPT_FOREIGN [evidence_report.verification.receipts[0]]');
  });
});
