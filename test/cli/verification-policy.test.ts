/**
 * Verification policies of dispatched contracts (`dispatch --verification receipt|typed|any`, `--check`): what a
 * COMPLETE close must rest on, through the real verbs.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closeWith, freshHome, gitRepo, hf, newDraft, nodeCmd, receipt } from '../helpers/receipts-cli.js';
import { rawStore } from '../helpers/gate.js';

const V = 'evidence_report.verification';
const pairs = (r: { json: any }): [string, string][] => (r.json.errors ?? []).map((e: any) => [e.code, e.path]);
const BARE_PASS = { result: 'pass' };

function dispatchWith(home: string, args: string[], env: Record<string, string> = {}): any {
  const r = hf(home, ['contract', 'dispatch', '--goal', 'fix it', '--json', ...args], { env });
  expect(r.code, r.stdout + r.stderr).toBe(0);
  return r.json;
}

describe('dispatch chooses a verification policy', () => {
  it('typed for the kind investigation, receipt for other kinds, the variable, then the flag; on the row', () => {
    const home = freshHome();
    expect(dispatchWith(home, []).bindings.verification).toBe('typed');
    expect(dispatchWith(home, ['--plan-task-id', 'T-1']).bindings.verification).toBe('receipt');
    expect(dispatchWith(home, ['--kind', 'build']).bindings.verification).toBe('receipt');
    expect(dispatchWith(home, [], { HANDOFF_DISPATCH_VERIFICATION: 'any' }).bindings.verification).toBe('any');
    const flagged = dispatchWith(home, ['--verification', 'typed', '--kind', 'build'], {
      HANDOFF_DISPATCH_VERIFICATION: 'any',
    });
    expect(flagged.bindings.verification).toBe('typed');
    expect(flagged.contract_block).toContain('\nverification: typed\n');
    expect(flagged.close_rules.map((r: any) => r.id)).toContain('verification');
    const list = hf(home, ['contract', 'list', '--json']).json;
    expect(list.handoffs.map((i: any) => i.verification).sort()).toEqual(
      ['any', 'receipt', 'receipt', 'typed', 'typed'].sort(),
    );
  });

  it('refuses an unknown policy (flag or variable) and --require-receipt beside another policy, exit 2', () => {
    const home = freshHome();
    const bad = hf(home, ['contract', 'dispatch', '--goal', 'g', '--verification', 'strict', '--json']);
    expect(bad.code).toBe(2);
    expect(bad.json.code).toBe('USAGE');
    const env = hf(home, ['contract', 'dispatch', '--goal', 'g', '--json'], {
      env: { HANDOFF_DISPATCH_VERIFICATION: 'nope' },
    });
    expect(env.code).toBe(2);
    const both = hf(home, ['contract', 'dispatch', '--goal', 'g', '--require-receipt', '--verification', 'any']);
    expect(both.code).toBe(2);
    expect(hf(home, ['contract', 'list', '--json']).json.count).toBe(0);
  });
});

describe('closing COMPLETE under each policy', () => {
  it('receipt: a bare pass, an untyped or self_review claim, or an uncited command claim is RECEIPT_REQUIRED', () => {
    const home = freshHome();
    const d = dispatchWith(home, ['--kind', 'build']).contract_id as string;
    const bare = closeWith(home, d, BARE_PASS);
    expect(bare.code).toBe(1);
    expect(pairs(bare)).toEqual([['RECEIPT_REQUIRED', `${V}.type`]]);
    const detail = bare.json.errors[0].detail as string;
    expect(detail).toContain('handoff evidence run -- <cmd>');
    expect(detail).toContain('handoff contract verify');
    expect(detail).toContain('NEEDS_VERIFICATION');
    expect(JSON.stringify(bare.json)).not.toMatch(/\{\s*\\?"result\\?"\s*:\s*\\?"pass\\?"\s*\}/);
    expect(pairs(closeWith(home, d, { type: 'self_review', reviewed: 'read', result: 'pass' }))).toEqual([
      ['RECEIPT_REQUIRED', `${V}.type`],
    ]);
    expect(pairs(closeWith(home, d, { type: 'command', command: 'npm test', result: 'pass' }))).toEqual([
      ['RECEIPT_REQUIRED', `${V}.receipt`],
    ]);
    // The receipt path closes it.
    const rc = receipt(home, d, nodeCmd('0')).receipt;
    const ok = closeWith(home, d, { type: 'command', command: rc.command, result: 'pass', receipt: rc.receipt_id });
    expect(ok.code, ok.stdout).toBe(0);
    expect(ok.json.agent_state).toBe('COMPLETE');
  });

  it('receipt: without a receipt the turn closes NEEDS_VERIFICATION for a verifier', () => {
    const home = freshHome();
    const d = dispatchWith(home, ['--kind', 'build']).contract_id as string;
    const r = closeWith(
      home,
      d,
      { type: 'self_review', reviewed: 'read', result: 'pass' },
      { state: 'NEEDS_VERIFICATION' },
    );
    expect(r.code, r.stdout).toBe(0);
  });

  it('typed (the investigation default): a bare pass is VERIFICATION_TYPE_REQUIRED; a typed claim closes', () => {
    const home = freshHome();
    const d = dispatchWith(home, []).contract_id as string;
    const bare = closeWith(home, d, BARE_PASS);
    expect(bare.code).toBe(1);
    expect(pairs(bare)).toEqual([['VERIFICATION_TYPE_REQUIRED', `${V}.type`]]);
    const ok = closeWith(home, d, { type: 'self_review', reviewed: 'read the diff', result: 'pass' });
    expect(ok.code, ok.stdout).toBe(0);
  });

  it('any, and a contract init draft: a bare pass closes COMPLETE as before', () => {
    const home = freshHome();
    const d = dispatchWith(home, ['--verification', 'any']).contract_id as string;
    expect(closeWith(home, d, BARE_PASS).code).toBe(0);
    expect(closeWith(home, newDraft(home), BARE_PASS).code).toBe(0);
  });
});

describe('freshness under the policy receipt', () => {
  it('a stale receipt cannot close COMPLETE, not even with --allow-stale; under any --allow-stale excuses it', () => {
    const repo = gitRepo();
    const home = freshHome();
    const strict = dispatchWith(home, ['--kind', 'build']).contract_id as string;
    const loose = dispatchWith(home, ['--verification', 'any']).contract_id as string;
    const a = receipt(home, strict, nodeCmd('0'), { cwd: repo }).receipt;
    const b = receipt(home, loose, nodeCmd('0'), { cwd: repo }).receipt;
    writeFileSync(join(repo, 'app.js'), 'console.log(2)\n');
    const claim = (rc: any) => ({ type: 'command', command: rc.command, result: 'pass', receipt: rc.receipt_id });
    const refused = closeWith(home, strict, claim(a), { flags: ['--allow-stale'], cwd: repo });
    expect(refused.code).toBe(1);
    expect(pairs(refused)).toEqual([['RECEIPT_STALE', `${V}.receipt`]]);
    const excused = closeWith(home, loose, claim(b), { flags: ['--allow-stale'], cwd: repo });
    expect(excused.code, excused.stdout).toBe(0);
    // A fresh receipt closes the strict one, and finalize records what it saw on the row.
    const c = receipt(home, strict, nodeCmd('0'), { cwd: repo }).receipt;
    const ok = closeWith(home, strict, claim(c), { cwd: repo });
    expect(ok.code, ok.stdout).toBe(0);
    const row = hf(home, ['contract', 'list', '--json']).json.handoffs.find((i: any) => i.contract_id === strict);
    expect(row.receipt_freshness).toEqual([{ receipt_id: c.receipt_id, freshness: 'fresh' }]);
  });
});

describe('dispatch --check', () => {
  it('each named command needs its own passing receipt in the chain: a receipt of another command is CHECK_NOT_RUN', () => {
    const home = freshHome();
    const check = `${process.execPath} -e 1`;
    const d = dispatchWith(home, ['--verification', 'any', '--check', check]).contract_id as string;
    const other = receipt(home, d, nodeCmd('0')).receipt;
    const claim = { type: 'command', command: other.command, result: 'pass', receipt: other.receipt_id };
    const refused = closeWith(home, d, claim);
    expect(refused.code).toBe(1);
    expect(pairs(refused)).toEqual([['CHECK_NOT_RUN', V]]);
    expect(refused.json.errors[0].detail).toContain(check);
    expect(receipt(home, d, [process.execPath, '-e', '1']).r.code).toBe(0);
    expect(closeWith(home, d, claim).code).toBe(0);
  });
});

describe('the stop gate reads the freshness finalize recorded', () => {
  it('an edit after a fresh close does not block; a row recorded stale blocks with RECEIPT_STALE', () => {
    const repo = gitRepo();
    const home = freshHome();
    const d = dispatchWith(home, ['--kind', 'build']).contract_id as string;
    const rc = receipt(home, d, nodeCmd('0'), { cwd: repo }).receipt;
    const claim = { type: 'command', command: rc.command, result: 'pass', receipt: rc.receipt_id };
    expect(closeWith(home, d, claim, { cwd: repo }).code).toBe(0);
    const hook = JSON.stringify({ hook_event_name: 'Stop', session_id: 's', stop_reason: 'end_turn' });
    const gate = () => hf(home, ['contract', 'gate', '--draft-id', d, '--json'], { input: hook, cwd: repo });
    // The tree moves on after the close: the gate never fingerprints it again.
    writeFileSync(join(repo, 'app.js'), 'console.log(3)\n');
    expect(gate().code).toBe(0);
    // What finalize recorded is what counts (a row written as stale, as no finalize under the policy writes it).
    const db = rawStore(home);
    db.prepare('UPDATE handoffs SET receipt_freshness_json = ? WHERE contract_id = ?').run(
      JSON.stringify([{ receipt_id: rc.receipt_id, freshness: 'stale' }]),
      d,
    );
    db.close();
    const blocked = gate();
    expect(blocked.code).toBe(2);
    expect(blocked.json.codes).toContain('RECEIPT_STALE');
  });
});
