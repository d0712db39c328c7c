/**
 * The approval cross-check binds an approval to its contract chain and its content. The one
 * error reported is the first of: unresolved id, foreign contract, content mismatch, not pending; a decision taken
 * after the turn ended (the gate's turnEndedAt) is not a violation.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fullVerdict, type ApprovalLookupResult } from '../../src/validator/index.js';
import { approval, env, pairs, type Env } from '../helpers/validator.js';

const sha = (t: string): string => createHash('sha256').update(t, 'utf8').digest('hex');
const MINE = 'a0123456789abcdef.aaaaaaaaaaaa';
const LINK = 'a0123456789abcdef.bbbbbbbbbbbb';
const OTHER = 'afedcba9876543210.cccccccccccc';
const CONTENT = 'DROP TABLE payments_old;';

interface Ap {
  status: string;
  contractId?: string | null;
  content?: string;
  decidedAt?: string | null;
}
const lookupOf = (ap: Ap | undefined) => (): ApprovalLookupResult =>
  ap === undefined
    ? { found: false }
    : {
        found: true,
        status: ap.status,
        contractId: ap.contractId ?? null,
        fingerprint: sha(ap.content ?? CONTENT),
        decidedAt: ap.decidedAt ?? null,
      };
const citing = (content: string = CONTENT): Env =>
  env((e) => (e.approval_request = { exact_content: content, approval_id: 'P-1' }), approval);
const verdict = (
  ap: Ap | undefined,
  e: Env = citing(),
  extra: { turnEndedAt?: string | null; chain?: string[] } = {},
) =>
  fullVerdict(e, {
    lookupApproval: lookupOf(ap),
    approvalChain: extra.chain ?? [MINE, LINK],
    turnEndedAt: extra.turnEndedAt,
  });

const ID: [string, string] = ['APPROVAL_ID_NOT_PENDING', 'approval_request.approval_id'];
const FOREIGN: [string, string] = ['APPROVAL_FOREIGN', 'approval_request.approval_id'];
const MISMATCH: [string, string] = ['APPROVAL_CONTENT_MISMATCH', 'approval_request.exact_content'];

describe('approval binding', () => {
  it('a pending approval of this chain for this exact content passes', () => {
    expect(verdict({ status: 'pending', contractId: MINE }).ok).toBe(true);
    expect(verdict({ status: 'pending', contractId: LINK }).ok).toBe(true);
    expect(verdict({ status: 'pending', contractId: null }).ok).toBe(true);
  });

  it('the order: unresolved, then foreign, then content, then status; exactly one error', () => {
    // Every later condition also holds in each row, so only the first may be reported.
    const e = citing('DROP TABLE payments;');
    expect(pairs(verdict(undefined, e))).toEqual([ID]);
    expect(pairs(verdict({ status: 'approved', contractId: OTHER }, e))).toEqual([FOREIGN]);
    expect(pairs(verdict({ status: 'approved', contractId: MINE }, e))).toEqual([MISMATCH]);
    expect(pairs(verdict({ status: 'approved', contractId: MINE }))).toEqual([ID]);
  });

  it('the content is compared as stored: whitespace, case and a JSON-looking value all differ', () => {
    for (const other of [`${CONTENT} `, CONTENT.toLowerCase(), '42']) {
      expect(pairs(verdict({ status: 'pending', contractId: MINE }, citing(other)))).toEqual([MISMATCH]);
    }
    const unicode = 'rm -rf "café" \u2028 it\'s';
    expect(verdict({ status: 'pending', contractId: MINE, content: unicode }, citing(unicode)).ok).toBe(true);
  });

  it('no citing chain (validate --file) skips only the foreign check', () => {
    const r = fullVerdict(citing(), { lookupApproval: lookupOf({ status: 'pending', contractId: OTHER }) });
    expect(r.ok).toBe(true);
    const mismatch = fullVerdict(citing('x'), { lookupApproval: lookupOf({ status: 'pending', contractId: OTHER }) });
    expect(pairs(mismatch)).toEqual([MISMATCH]);
  });

  it('a lazy chain is only walked when the approval resolves to a contract', () => {
    let walked = 0;
    const chain = (): string[] => {
      walked++;
      return [MINE];
    };
    fullVerdict(citing(), { lookupApproval: lookupOf(undefined), approvalChain: chain });
    fullVerdict(citing(), { lookupApproval: lookupOf({ status: 'pending', contractId: null }), approvalChain: chain });
    expect(walked).toBe(0);
    expect(
      pairs(
        fullVerdict(citing(), {
          lookupApproval: lookupOf({ status: 'pending', contractId: OTHER }),
          approvalChain: chain,
        }),
      ),
    ).toEqual([FOREIGN]);
    expect(walked).toBe(1);
  });
});

describe('decisions after the turn', () => {
  const ENDED = '2026-03-01T10:00:00.000Z';
  it('decided after the turn ended: not a violation, whatever the decision', () => {
    for (const status of ['approved', 'rejected', 'expired']) {
      expect(
        verdict({ status, contractId: MINE, decidedAt: '2026-03-01T10:00:00.001Z' }, citing(), { turnEndedAt: ENDED })
          .ok,
      ).toBe(true);
    }
  });

  it('decided before or at the end of the turn, or no end known: still APPROVAL_ID_NOT_PENDING', () => {
    for (const decidedAt of ['2026-03-01T09:59:59.999Z', ENDED]) {
      expect(
        pairs(verdict({ status: 'approved', contractId: MINE, decidedAt }, citing(), { turnEndedAt: ENDED })),
      ).toEqual([ID]);
    }
    expect(
      pairs(
        verdict({ status: 'approved', contractId: MINE, decidedAt: '2027-01-01T00:00:00.000Z' }, citing(), {
          turnEndedAt: null,
        }),
      ),
    ).toEqual([ID]);
  });

  it('after the turn ended, unresolved, foreign and mismatched approvals still fail', () => {
    const late = '2026-03-02T00:00:00.000Z';
    const opts = { turnEndedAt: ENDED };
    expect(pairs(verdict(undefined, citing(), opts))).toEqual([ID]);
    expect(pairs(verdict({ status: 'approved', contractId: OTHER, decidedAt: late }, citing(), opts))).toEqual([
      FOREIGN,
    ]);
    expect(pairs(verdict({ status: 'approved', contractId: MINE, decidedAt: late }, citing('other'), opts))).toEqual([
      MISMATCH,
    ]);
  });
});
