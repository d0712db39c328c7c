/**
 * The approval lifecycle in the cross-check: a turn closing APPROVAL_REQUEST cites a pending approval; the executing
 * turn (any other state) cites the approved one, whose content must match exactly and which it may use once. Writes
 * accept pending and approved; finalize and the gate (`approvalUse: 'close'`) only approved, or the one this very row
 * used. Check order: not found, foreign, content, already used, status.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fullVerdict, type ApprovalLookupResult, type FullVerdictOptions } from '../../src/validator/index.js';
import { approval, complete, env, inProgress, pairs, withState, type Env } from '../helpers/validator.js';

const sha = (t: string): string => createHash('sha256').update(t, 'utf8').digest('hex');
const MINE = 'a0123456789abcdef.aaaaaaaaaaaa';
const LINK = 'a0123456789abcdef.bbbbbbbbbbbb';
const OTHER = 'afedcba9876543210.cccccccccccc';
const CONTENT = 'git push origin main';

interface Ap {
  status: string;
  contractId?: string | null;
  agentId?: string | null;
  content?: string;
  decidedAt?: string | null;
  usedBy?: number | null;
}
const lookupOf = (ap: Ap | undefined) => (): ApprovalLookupResult =>
  ap === undefined
    ? { found: false }
    : {
        found: true,
        status: ap.status,
        contractId: ap.contractId === undefined ? MINE : ap.contractId,
        agentId: ap.agentId ?? null,
        fingerprint: sha(ap.content ?? CONTENT),
        decidedAt: ap.decidedAt ?? (ap.status === 'pending' ? null : '2026-03-01T10:00:00.000Z'),
        usedByHandoffId: ap.usedBy ?? null,
      };

/** An envelope in `state` citing approval P-1 with `content` (undefined: no exact_content key). */
function citing(start: () => Env, content: string | undefined = CONTENT): Env {
  return env((e) => {
    e.approval_request =
      content === undefined ? { approval_id: 'P-1' } : { exact_content: content, approval_id: 'P-1' };
  }, start);
}
const blocked = (): Env => withState('BLOCKED');

const verdict = (ap: Ap | undefined, e: Env, extra: Partial<FullVerdictOptions> = {}) =>
  pairs(
    fullVerdict(e, {
      lookupApproval: lookupOf(ap),
      approvalChain: [MINE, LINK],
      citingHandoffId: 5,
      citingAgentId: 'a0123456789abcdef',
      ...extra,
    }),
  );

const ID: [string, string] = ['APPROVAL_ID_NOT_PENDING', 'approval_request.approval_id'];
const FOREIGN: [string, string] = ['APPROVAL_FOREIGN', 'approval_request.approval_id'];
const MISMATCH: [string, string] = ['APPROVAL_CONTENT_MISMATCH', 'approval_request.exact_content'];
const USED: [string, string] = ['APPROVAL_ALREADY_USED', 'approval_request.approval_id'];
const NOT_APPROVED: [string, string] = ['APPROVAL_NOT_APPROVED', 'approval_request.approval_id'];
const CLOSE = { approvalUse: 'close' as const };

describe('which status each state and caller accepts', () => {
  it.each([
    // [envelope state, approval status, write result, finalize/gate result, envelope builder]
    ['APPROVAL_REQUEST', 'pending', [], [], approval],
    ['APPROVAL_REQUEST', 'approved', [ID], [ID], approval],
    ['APPROVAL_REQUEST', 'rejected', [ID], [ID], approval],
    ['IN_PROGRESS', 'pending', [], [NOT_APPROVED], inProgress],
    ['IN_PROGRESS', 'approved', [], [], inProgress],
    ['COMPLETE', 'pending', [], [NOT_APPROVED], complete],
    ['COMPLETE', 'approved', [], [], complete],
    ['BLOCKED', 'approved', [], [], blocked],
    ['COMPLETE', 'revoked', [ID], [ID], complete],
    ['COMPLETE', 'expired', [ID], [ID], complete],
    ['COMPLETE', 'rejected', [ID], [ID], complete],
  ] as const)('%s citing a %s approval: write %j, finalize/gate %j', (_s, status, write, close, start) => {
    expect(verdict({ status }, citing(start))).toEqual(write);
    expect(verdict({ status }, citing(start), CLOSE)).toEqual(close);
  });

  it('a used approval passes only for the row that used it, and only outside APPROVAL_REQUEST', () => {
    expect(verdict({ status: 'used', usedBy: 5 }, citing(complete), CLOSE)).toEqual([]);
    expect(verdict({ status: 'used', usedBy: 5 }, citing(inProgress))).toEqual([]);
    expect(verdict({ status: 'used', usedBy: 4 }, citing(complete), CLOSE)).toEqual([USED]);
    expect(verdict({ status: 'used', usedBy: 4 }, citing(inProgress))).toEqual([USED]);
    // A contract without a row yet (a new continuation) never used it.
    expect(verdict({ status: 'used', usedBy: 5 }, citing(complete), { ...CLOSE, citingHandoffId: null })).toEqual([
      USED,
    ]);
    expect(verdict({ status: 'used', usedBy: 5 }, citing(approval))).toEqual([ID]);
    expect(verdict({ status: 'used', usedBy: 4 }, citing(approval))).toEqual([USED]);
  });

  it('the default caller is a write', () => {
    const r = fullVerdict(citing(complete), { lookupApproval: lookupOf({ status: 'pending' }) });
    expect(r.ok).toBe(true);
  });
});

describe('the content of an approved approval', () => {
  it.each([
    ['missing', undefined],
    ['not a string', 42],
    ['other text', `${CONTENT} --force`],
  ])('%s: APPROVAL_CONTENT_MISMATCH', (_what, content) => {
    const e = env(
      (x) =>
        (x.approval_request =
          content === undefined ? { approval_id: 'P-1' } : { exact_content: content, approval_id: 'P-1' }),
      complete,
    );
    expect(verdict({ status: 'approved' }, e, CLOSE)).toEqual([MISMATCH]);
    expect(verdict({ status: 'approved' }, e)).toEqual([MISMATCH]);
    expect(verdict({ status: 'used', usedBy: 5 }, e, CLOSE)).toEqual([MISMATCH]);
  });

  it('a pending approval without content is left to the form layer', () => {
    expect(verdict({ status: 'pending' }, citing(inProgress, undefined))).toEqual([]);
  });
});

describe('ownership of an approved or used approval', () => {
  it('its contract must be in the citing chain', () => {
    expect(verdict({ status: 'approved', contractId: LINK }, citing(complete), CLOSE)).toEqual([]);
    expect(verdict({ status: 'approved', contractId: OTHER }, citing(complete), CLOSE)).toEqual([FOREIGN]);
  });

  it('without a contract, its agent must be the citing agent; neither set is no one', () => {
    expect(
      verdict({ status: 'approved', contractId: null, agentId: 'a0123456789abcdef' }, citing(complete), CLOSE),
    ).toEqual([]);
    expect(
      verdict({ status: 'approved', contractId: null, agentId: 'afedcba9876543210' }, citing(complete), CLOSE),
    ).toEqual([FOREIGN]);
    expect(verdict({ status: 'approved', contractId: null, agentId: null }, citing(complete), CLOSE)).toEqual([
      FOREIGN,
    ]);
    expect(verdict({ status: 'used', contractId: null, agentId: null, usedBy: 5 }, citing(complete), CLOSE)).toEqual([
      FOREIGN,
    ]);
    // A pending one without a contract stays anyone's to wait for (as before).
    expect(verdict({ status: 'pending', contractId: null, agentId: null }, citing(approval))).toEqual([]);
  });

  it('without a citing contract (validate --file) ownership is not judged', () => {
    const r = fullVerdict(citing(complete), {
      lookupApproval: lookupOf({ status: 'approved', contractId: null, agentId: null }),
    });
    expect(r.ok).toBe(true);
  });
});

describe('the check order: not found, foreign, content, already used, status', () => {
  it('reports only the first failing check', () => {
    const wrong = citing(complete, 'other');
    expect(verdict(undefined, wrong, CLOSE)).toEqual([ID]);
    expect(verdict({ status: 'used', usedBy: 4, contractId: OTHER }, wrong, CLOSE)).toEqual([FOREIGN]);
    expect(verdict({ status: 'used', usedBy: 4 }, wrong, CLOSE)).toEqual([MISMATCH]);
    expect(verdict({ status: 'used', usedBy: 4 }, citing(complete), CLOSE)).toEqual([USED]);
    expect(verdict({ status: 'pending' }, citing(complete), CLOSE)).toEqual([NOT_APPROVED]);
  });
});

describe('the gate on a turn that ended waiting for approval', () => {
  const ENDED = '2026-03-01T09:00:00.000Z';
  it('an approval decided, then used by the executing turn, after the turn ended is not its violation', () => {
    expect(
      verdict({ status: 'used', usedBy: 9, decidedAt: '2026-03-01T10:00:00.000Z' }, citing(approval), {
        ...CLOSE,
        turnEndedAt: ENDED,
      }),
    ).toEqual([]);
    expect(
      verdict({ status: 'used', usedBy: 9, decidedAt: '2026-03-01T08:00:00.000Z' }, citing(approval), {
        ...CLOSE,
        turnEndedAt: ENDED,
      }),
    ).toEqual([USED]);
  });
});
