import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN } from '../helpers/cli.js';
import { closeWith, freshHome, hf, newDraft, NODE, snapshot } from '../helpers/receipts-cli.js';

const verificationOf = (home: string, id: string): any =>
  JSON.parse(readFileSync(join(home, 'drafts', `${id}.json`), 'utf8')).evidence_report.verification;

function draftWithCommand(command: string, extra: Record<string, unknown> = {}): { home: string; d: string } {
  const home = freshHome();
  const d = newDraft(home);
  const patch = { evidence_report: { verification: { type: 'command', command, ...extra } } };
  expect(hf(home, ['contract', 'fill', '--draft-id', d, '--json', JSON.stringify(patch)]).code).toBe(0);
  return { home, d };
}

describe('contract verify', () => {
  it('pass: exit 0, the receipt id and result pass are written to the draft in one write', () => {
    const { home, d } = draftWithCommand('echo verified');
    const r = hf(home, ['contract', 'verify', '--draft-id', d, '--json']);
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ status: 'ok', draft_id: d, result: 'pass', appended: true });
    expect(r.json.receipt).toMatchObject({
      shell: true,
      argv: ['echo verified'],
      command: 'echo verified',
      outcome: 'pass',
      cwd: home,
    });
    expect(r.stderr).toContain('verified\n');
    expect(verificationOf(home, d)).toMatchObject({
      type: 'command',
      command: 'echo verified',
      receipt: r.json.receipt.receipt_id,
      result: 'pass',
    });
    // The verified claim now finalizes COMPLETE with its receipt.
    const fin = closeWith(home, d, { ...verificationOf(home, d) });
    expect(fin.code).toBe(0);
  });

  it.each([
    ['exit 1', 'fail'],
    ['exit 5', 'unproven'],
  ])('%s: RECEIPT_FAILED exit 1, result %s, receipt and update kept', (command, result) => {
    const { home, d } = draftWithCommand(command);
    const r = hf(home, ['contract', 'verify', '--draft-id', d, '--json']);
    expect(r.code).toBe(1);
    expect(r.json).toMatchObject({ status: 'rejected', code: 'RECEIPT_FAILED', draft_id: d, result, appended: true });
    expect(r.json.error).toMatch(/receipt was recorded/);
    expect(verificationOf(home, d)).toMatchObject({ receipt: r.json.receipt.receipt_id, result });
    expect(hf(home, ['evidence', 'show', r.json.receipt.receipt_id, '--json']).json.receipt.outcome).toBe(result);
    const human = hf(home, ['contract', 'verify', '--draft-id', d]);
    expect(human.code).toBe(1);
    expect(human.stderr).toMatch(/^Rejected: /m);
  });

  it('VERIFY_NO_COMMAND: no verification object, or no non-empty command; nothing runs or is written', () => {
    const home = freshHome();
    const d = newDraft(home);
    const before = snapshot(home);
    const r = hf(home, ['contract', 'verify', '--draft-id', d, '--json']);
    expect([r.code, r.json.status, r.json.code]).toEqual([1, 'rejected', 'VERIFY_NO_COMMAND']);
    expect(snapshot(home)).toEqual(before);
    const patch = { evidence_report: { verification: { type: 'self_review', reviewed: 'the diff', command: '  ' } } };
    expect(hf(home, ['contract', 'fill', '--draft-id', d, '--json', JSON.stringify(patch)]).code).toBe(0);
    expect(hf(home, ['contract', 'verify', '--draft-id', d, '--json']).json.code).toBe('VERIFY_NO_COMMAND');
  });

  it('VERIFY_CONTRACT_CLOSED: a closed tip is refused before anything runs', () => {
    const marker = join(mkdtempSync(join(tmpdir(), 'handoff-verify-')), 'ran');
    const home = freshHome();
    const d = newDraft(home);
    const fin = closeWith(
      home,
      d,
      { type: 'command', command: `touch ${marker}`, result: 'fail' },
      { state: 'BLOCKED' },
    );
    expect(fin.code).toBe(0);
    const before = snapshot(home);
    const r = hf(home, ['contract', 'verify', '--draft-id', d, '--json']);
    expect([r.code, r.json.code]).toEqual([1, 'VERIFY_CONTRACT_CLOSED']);
    expect(existsSync(marker)).toBe(false);
    expect(snapshot(home)).toEqual(before);
  });

  it('a tip that closes while the command runs: the receipt is kept, the update is skipped (appended false)', () => {
    const home = freshHome();
    const d = newDraft(home);
    const finalize = `${NODE} ${BIN} contract finalize --draft-id ${d} --json >/dev/null`;
    const patch = {
      agent_status: { agent_state: 'BLOCKED', next_action: 'wait' },
      evidence_report: { verification: { type: 'command', command: finalize } },
    };
    expect(hf(home, ['contract', 'fill', '--draft-id', d, '--json', JSON.stringify(patch)]).code).toBe(0);
    const draftBefore = readFileSync(join(home, 'drafts', `${d}.json`), 'utf8');
    const r = hf(home, ['contract', 'verify', '--draft-id', d, '--json']);
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ status: 'ok', result: 'pass', appended: false, draft_id: d });
    expect(r.stderr).toContain(`[RECEIPT NOT APPENDED: contract closed] ${r.json.receipt.receipt_id} ${d}`);
    expect(readFileSync(join(home, 'drafts', `${d}.json`), 'utf8')).toBe(draftBefore);
    expect(hf(home, ['contract', 'chain', '--contract-id', d, '--json']).json.links).toBe(1);
  });

  it('an update the full verdict refuses (COMPLETE cannot take result fail): DRAFT_APPEND_FAILED exit 4, receipt kept', () => {
    const home = freshHome();
    const d = newDraft(home);
    const patch = {
      agent_status: { agent_state: 'COMPLETE', next_action: 'done' },
      evidence_report: { verification: { type: 'command', command: 'exit 1', result: 'pass' } },
    };
    expect(hf(home, ['contract', 'fill', '--draft-id', d, '--json', JSON.stringify(patch)]).code).toBe(0);
    const r = hf(home, ['contract', 'verify', '--draft-id', d, '--json']);
    expect(r.code).toBe(4);
    expect(r.json).toMatchObject({
      status: 'error',
      code: 'DRAFT_APPEND_FAILED',
      receipt_recorded: true,
      appended: false,
      cause: 'rejected',
      draft_id: d,
    });
    expect(verificationOf(home, d).receipt).toBeUndefined();
    expect(hf(home, ['evidence', 'receipts', '--draft-id', d, '--json']).json.count).toBe(1);
  });
});
