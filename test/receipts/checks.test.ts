import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  checkReceiptsIn,
  checkReceiptsWith,
  citedReceipts,
  type ReceiptCheckOptions,
} from '../../src/receipts/checks.js';
import type { ReceiptRow } from '../../src/receipts/row.js';
import { sampleRow } from '../helpers/receipts.js';

const TIP = 'a0123456789abcdef.0123456789ab';
const PARENT = 'a0123456789abcdef.aaaaaaaaaaaa';
const OTHER = 'affffffffffffffff.bbbbbbbbbbbb';
const id = (n: number): string => `R-${n.toString(16).padStart(16, '0')}`;

function envelope(verification: Record<string, unknown> | undefined, state = 'COMPLETE'): Record<string, unknown> {
  return {
    agent_status: { agent_state: state, agent_id: 'a0123456789abcdef', pending_steps: [], next_action: 'done' },
    evidence_report: verification === undefined ? {} : { verification },
  };
}

function checker(rows: ReceiptRow[], seams: { tampered?: string[]; stale?: string[] } = {}) {
  const byId = new Map(rows.map((r) => [r.receipt_id, r]));
  return (env: unknown, opts: Partial<ReceiptCheckOptions> = {}) =>
    checkReceiptsWith(
      (rid) => byId.get(rid),
      env,
      { contractChainIds: [PARENT, TIP], requireReceipt: false, mode: 'finalize', ...opts },
      {
        verify: (r) => ({ ok: !(seams.tampered ?? []).includes(r.receipt_id), failures: ['stdout'] }),
        isStale: (r) => (seams.stale ?? []).includes(r.receipt_id),
      },
    ).map((e) => [e.code, e.path]);
}

const pass = (n: number, over: Partial<ReceiptRow> = {}): ReceiptRow =>
  sampleRow({ receipt_id: id(n), contract_id: TIP, ...over });
const V = 'evidence_report.verification';

describe('cited receipts', () => {
  it('are receipt, then each element of receipts, in order, with their own paths', () => {
    expect(citedReceipts(envelope({ receipt: id(1), receipts: [id(2), id(1)] }))).toEqual([
      { id: id(1), path: `${V}.receipt` },
      { id: id(2), path: `${V}.receipts[0]` },
      { id: id(1), path: `${V}.receipts[1]` },
    ]);
    expect(citedReceipts(envelope(undefined))).toEqual([]);
    expect(citedReceipts({ evidence_report: { verification: 'x' } })).toEqual([]);
  });
});

describe('receipt checks', () => {
  const check = checker(
    [
      pass(1),
      pass(2, { contract_id: PARENT }),
      pass(3, { contract_id: OTHER }),
      pass(4, { exit_code: 1, outcome: 'fail' }),
      pass(5, { command: 'npm run lint' }),
      pass(6),
    ],
    {
      tampered: [id(6)],
      stale: [id(2)],
    },
  );

  it('passes a matching, passing receipt of the chain', () => {
    expect(check(envelope({ type: 'command', command: ' npm test ', result: 'pass', receipt: id(1) }))).toEqual([]);
    expect(check(envelope({ type: 'Command', command: 'npm test', result: 'PASS', receipts: [id(1)] }))).toEqual([]);
  });

  it('reports each code at its reference, grouped by check in the normative order', () => {
    const env = envelope({
      type: 'command',
      command: 'npm test',
      result: 'pass',
      receipt: id(9),
      receipts: [id(3), id(6), id(4), id(2), id(8)],
    });
    expect(check(env)).toEqual([
      ['RECEIPT_NOT_FOUND', `${V}.receipt`],
      ['RECEIPT_NOT_FOUND', `${V}.receipts[4]`],
      ['RECEIPT_FOREIGN', `${V}.receipts[0]`],
      ['RECEIPT_TAMPERED', `${V}.receipts[1]`],
      ['RECEIPT_FAILED', `${V}.receipts[2]`],
      ['RECEIPT_STALE', `${V}.receipts[3]`],
    ]);
  });

  it('RECEIPT_COMMAND_MISMATCH: one error at the first remaining reference, only for command/code claims', () => {
    const env = (type: unknown, command: unknown) =>
      envelope({ type, command, result: 'pass', receipts: [id(3), id(5), id(1)] });
    expect(check(env('command', 'npm run lint'))).toEqual([['RECEIPT_FOREIGN', `${V}.receipts[0]`]]);
    expect(check(env('code', 'make'))).toEqual([
      ['RECEIPT_FOREIGN', `${V}.receipts[0]`],
      ['RECEIPT_COMMAND_MISMATCH', `${V}.receipts[1]`],
    ]);
    expect(check(env('self_review', 'make'))).toEqual([['RECEIPT_FOREIGN', `${V}.receipts[0]`]]);
    // Skipped when no cited receipt remains.
    expect(check(envelope({ type: 'command', command: 'make', receipts: [id(3), id(9)] })).map((e) => e[0])).toEqual([
      'RECEIPT_NOT_FOUND',
      'RECEIPT_FOREIGN',
    ]);
  });

  it('RECEIPT_FAILED only when the claim says pass', () => {
    expect(
      check(envelope({ type: 'command', command: 'npm test', result: 'fail', receipt: id(4) }, 'NEEDS_VERIFICATION')),
    ).toEqual([]);
    expect(check(envelope({ type: 'command', command: 'npm test', result: ' Pass ', receipt: id(4) }))).toEqual([
      ['RECEIPT_FAILED', `${V}.receipt`],
    ]);
  });

  it('--allow-stale skips RECEIPT_STALE only', () => {
    const env = envelope({ type: 'command', command: 'npm test', result: 'pass', receipts: [id(2), id(4)] });
    expect(check(env, { allowStale: true })).toEqual([['RECEIPT_FAILED', `${V}.receipts[1]`]]);
  });

  it('RECEIPT_REQUIRED: required turn, COMPLETE or NEEDS_VERIFICATION, command/code claim, nothing cited', () => {
    const req = { requireReceipt: true };
    expect(check(envelope({ type: 'command', command: 'npm test', result: 'pass' }), req)).toEqual([
      ['RECEIPT_REQUIRED', `${V}.receipt`],
    ]);
    expect(check(envelope({ type: ' CODE ', command: 'x' }, 'needs_verification.'), req)).toEqual([
      ['RECEIPT_REQUIRED', `${V}.receipt`],
    ]);
    expect(check(envelope({ type: 'command', command: 'npm test' }, 'BLOCKED'), req)).toEqual([]);
    expect(check(envelope({ type: 'semantic', requires_human: true, result: 'pass' }), req)).toEqual([]);
    expect(check(envelope({ type: 'command', command: 'npm test', result: 'pass' }))).toEqual([]);
    expect(check(envelope({ type: 'command', command: 'npm test', result: 'pass', receipt: id(1) }), req)).toEqual([]);
  });

  it('gate mode: RECEIPT_REQUIRED first, never RECEIPT_STALE', () => {
    const gate = { mode: 'gate' as const, requireReceipt: true };
    expect(check(envelope({ type: 'command', command: 'npm test', result: 'pass', receipt: id(2) }), gate)).toEqual([]);
    expect(check(envelope({ type: 'command', command: 'npm test', result: 'pass' }), gate)).toEqual([
      ['RECEIPT_REQUIRED', `${V}.receipt`],
    ]);
    expect(
      check(envelope({ type: 'command', command: 'npm test', result: 'pass', receipts: [id(9), id(4)] }), gate),
    ).toEqual([
      ['RECEIPT_NOT_FOUND', `${V}.receipts[0]`],
      ['RECEIPT_FAILED', `${V}.receipts[1]`],
    ]);
  });

  it('without a store every cited receipt is RECEIPT_NOT_FOUND', () => {
    const none = checkReceiptsWith(
      () => undefined,
      envelope({ type: 'command', command: 'x', receipt: id(1), receipts: [id(2)] }),
      { contractChainIds: [TIP], requireReceipt: true, mode: 'finalize' },
      { verify: () => ({ ok: true, failures: [] }) },
    );
    expect(none.map((e) => e.code)).toEqual(['RECEIPT_NOT_FOUND', 'RECEIPT_NOT_FOUND']);
    expect(none.every((e) => e.detail.length > 0 && !e.detail.includes('\n'))).toBe(true);
  });

  it('the real integrity check: an edited inline output or row is tampered; a path outside the evidence root is never read', async () => {
    const row = pass(1);
    const root = mkdtempSync(join(tmpdir(), 'handoff-checks-'));
    mkdirSync(join(root, 'evidence'));
    const real = async (r: ReceiptRow) =>
      (
        await checkReceiptsIn(
          { getReceipt: () => Promise.resolve(r) },
          envelope({ type: 'command', command: 'npm test', result: 'pass', receipt: id(1) }),
          { contractChainIds: [TIP], requireReceipt: false, mode: 'gate', evidenceRoot: join(root, 'evidence') },
        )
      ).map((e) => e.code);
    expect(await real(row)).toEqual([]);
    expect(await real({ ...row, stdout_text: 'ok!\n' })).toEqual(['RECEIPT_TAMPERED']);
    expect(await real({ ...row, exit_code: 0, command: 'npm  test' })).toEqual(['RECEIPT_TAMPERED']);
    expect(await real({ ...row, stdout_text: null, stdout_path: join(root, 'evidence', 'gone.txt') })).toEqual([
      'RECEIPT_TAMPERED',
    ]);
    expect(await real({ ...row, stdout_text: null, stdout_path: '/etc/hostname' })).toEqual(['EVIDENCE_PATH_ESCAPE']);
    expect(await real({ ...row, stdout_text: null, stdout_path: join(root, 'evidence', '..', 'x') })).toEqual([
      'EVIDENCE_PATH_ESCAPE',
    ]);
  });
});

describe('receipt checks: whole-command comparison (mutation audit)', () => {
  it('RECEIPT_COMMAND_MISMATCH: a receipt of a longer command never matches a claim that is only its prefix', () => {
    const check = checker([
      pass(1, { command: 'npm test -- --grep only-one' }),
      pass(2, { command: 'npm testing' }),
      pass(3, { command: ' npm test ' }),
    ]);
    const claim = (receipt: string) => envelope({ type: 'command', command: 'npm test', result: 'pass', receipt });
    expect(check(claim(id(1)))).toEqual([['RECEIPT_COMMAND_MISMATCH', `${V}.receipt`]]);
    expect(check(claim(id(2)))).toEqual([['RECEIPT_COMMAND_MISMATCH', `${V}.receipt`]]);
    // Surrounding blanks are the only difference that is forgiven.
    expect(check(claim(id(3)))).toEqual([]);
  });
});
