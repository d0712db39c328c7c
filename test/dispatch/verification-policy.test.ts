/**
 * The pure rules of the verification policies: what finalize, the write verbs' foresight and the stop gate share,
 * and the gate's reading of the freshness finalize recorded on the row (it never fingerprints the tree).
 */
import { describe, expect, it } from 'vitest';
import { policyIssues, recordedFreshnessIssues } from '../../src/finalize/verification-policy.js';
import { resolveVerification } from '../../src/dispatch/verification.js';
import type { HandoffRow } from '../../src/store/handoff-row.js';

const RECEIPT = 'R-0123456789abcdef';
const close = (verification: Record<string, unknown>, state = 'COMPLETE') => ({
  agent_status: { agent_state: state },
  evidence_report: { verification },
});
const cited = close({ type: 'command', command: 'npm test', result: 'pass', receipt: RECEIPT });
const row = (over: Partial<HandoffRow>): HandoffRow =>
  ({ agent_state: 'COMPLETE', verification: 'receipt', receipt_freshness_json: null, ...over }) as HandoffRow;

describe('resolveVerification', () => {
  it('flag, then --require-receipt, then the variable, then the kind', () => {
    expect(resolveVerification(undefined, false, {}, 'investigation')).toBe('typed');
    expect(resolveVerification(undefined, false, {}, 'verifier')).toBe('receipt');
    expect(resolveVerification(undefined, true, {}, 'investigation')).toBe('receipt');
    expect(resolveVerification(undefined, false, { HANDOFF_DISPATCH_VERIFICATION: 'any' }, 'build')).toBe('any');
    expect(resolveVerification('typed', false, { HANDOFF_DISPATCH_VERIFICATION: 'any' }, 'build')).toBe('typed');
  });
});

describe('policyIssues', () => {
  it('only a COMPLETE close under receipt or typed is judged', () => {
    expect(policyIssues(close({ result: 'pass' }), 'any')).toEqual([]);
    expect(policyIssues(close({ result: 'pass' }, 'NEEDS_VERIFICATION'), 'receipt')).toEqual([]);
    expect(policyIssues(close({ result: 'pass' }), 'receipt').map((i) => i.code)).toEqual(['RECEIPT_REQUIRED']);
    expect(policyIssues(close({ result: 'pass' }), 'typed').map((i) => i.code)).toEqual(['VERIFICATION_TYPE_REQUIRED']);
    expect(policyIssues(close({ type: 'none', result: 'pass' }), 'typed').map((i) => i.code)).toEqual([
      'VERIFICATION_TYPE_REQUIRED',
    ]);
    expect(policyIssues(close({ type: 'semantic', requires_human: true, result: 'pass' }), 'typed')).toEqual([]);
    expect(policyIssues(cited, 'receipt')).toEqual([]);
  });
});

describe('the gate reads the recorded freshness', () => {
  it('under receipt a COMPLETE row whose cited receipt was recorded stale, or not recorded, blocks', () => {
    const fresh = JSON.stringify([{ receipt_id: RECEIPT, freshness: 'fresh' }]);
    const stale = JSON.stringify([{ receipt_id: RECEIPT, freshness: 'stale' }]);
    const unknown = JSON.stringify([{ receipt_id: RECEIPT, freshness: 'unknown' }]);
    expect(recordedFreshnessIssues(row({ receipt_freshness_json: fresh }), cited)).toEqual([]);
    expect(recordedFreshnessIssues(row({ receipt_freshness_json: unknown }), cited)).toEqual([]);
    const blocked = recordedFreshnessIssues(row({ receipt_freshness_json: stale }), cited);
    expect(blocked.map((i) => [i.code, i.path])).toEqual([['RECEIPT_STALE', 'evidence_report.verification.receipt']]);
    expect(recordedFreshnessIssues(row({}), cited).map((i) => i.code)).toEqual(['RECEIPT_STALE']);
    // Other policies and other states keep the earlier rule: the gate never judges freshness there.
    expect(recordedFreshnessIssues(row({ verification: 'any', receipt_freshness_json: stale }), cited)).toEqual([]);
    expect(recordedFreshnessIssues(row({ agent_state: 'BLOCKED', receipt_freshness_json: stale }), cited)).toEqual([]);
  });
});
