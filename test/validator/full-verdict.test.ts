/** The full verdict: form layer, then the approval cross-check through an injected lookup. */
import { describe, expect, it, vi } from 'vitest';
import { HandoffError } from '../../src/errors.js';
import { fullVerdict, validateEnvelope, type ApprovalLookupResult } from '../../src/validator/index.js';
import { approval, env, inProgress, pairs, withState, type Env } from '../helpers/validator.js';

const STORE: Record<string, string> = { 'ap-1': 'pending', 'ap-2': 'approved', '5': 'pending', '7': 'revoked' };
const fakeLookup = () =>
  vi.fn((id: string): ApprovalLookupResult => (id in STORE ? { found: true, status: STORE[id] } : { found: false }));
const withId = (id: unknown, start: () => Env = approval): Env =>
  env((e) => (e.approval_request = { ...(e.approval_request ?? {}), approval_id: id }), start);
const NOT_PENDING: [string, string][] = [['APPROVAL_ID_NOT_PENDING', 'approval_request.approval_id']];

describe('fullVerdict', () => {
  it('a pending approval passes, and the id is trimmed', () => {
    const lookup = fakeLookup();
    const r = fullVerdict(withId('  ap-1\n'), { lookupApproval: lookup });
    expect(r.ok).toBe(true);
    expect(lookup).toHaveBeenCalledWith('ap-1');
    expect(r).toEqual(validateEnvelope(withId('  ap-1\n')));
  });

  it('an unknown id fails with "does not resolve to any approval"', () => {
    const r = fullVerdict(withId(' ap-9 '), { lookupApproval: fakeLookup() });
    expect(pairs(r)).toEqual(NOT_PENDING);
    expect(r.codes).toEqual(['APPROVAL_ID_NOT_PENDING']);
    expect(r.ok).toBe(false);
    expect(r.errors[0].detail).toContain('"ap-9"');
    expect(r.errors[0].detail).toContain('does not resolve to any approval');
  });

  it('a decided approval fails and the detail names its status', () => {
    const r = fullVerdict(withId('ap-2'), { lookupApproval: fakeLookup() });
    expect(pairs(r)).toEqual(NOT_PENDING);
    expect(r.errors[0].detail).toContain('"approved"');
  });

  it('a number is looked up as its JSON text', () => {
    const lookup = fakeLookup();
    expect(fullVerdict(withId(5), { lookupApproval: lookup }).ok).toBe(true);
    expect(lookup).toHaveBeenCalledWith('5');
    expect(fullVerdict(withId(7), { lookupApproval: lookup }).errors[0].detail).toContain('"revoked"');
  });

  it.each([[true], [false], [['ap-1']], [{ id: 'ap-1' }]])('%j never resolves', (id) => {
    const lookup = fakeLookup();
    const r = fullVerdict(withId(id), { lookupApproval: lookup });
    expect(pairs(r)).toEqual(NOT_PENDING);
    expect(r.errors[0].detail).toContain('does not resolve to any approval');
    expect(lookup).not.toHaveBeenCalled();
  });

  it.each([[undefined], [null], [''], ['  \ufeff']])('approval_id %j is not checked', (id) => {
    const lookup = fakeLookup();
    const e = id === undefined ? approval() : withId(id);
    expect(fullVerdict(e, { lookupApproval: lookup }).ok).toBe(true);
    expect(lookup).not.toHaveBeenCalled();
  });

  it('a non-object approval_request is not checked', () => {
    const lookup = fakeLookup();
    expect(fullVerdict(inProgress(), { lookupApproval: lookup }).ok).toBe(true);
    expect(lookup).not.toHaveBeenCalled();
  });

  it('runs in any state: a stale id fails on IN_PROGRESS too', () => {
    expect(pairs(fullVerdict(withId('7', inProgress), { lookupApproval: fakeLookup() }))).toEqual(NOT_PENDING);
    expect(pairs(fullVerdict(withId('ap-9', inProgress), { lookupApproval: fakeLookup() }))).toEqual(NOT_PENDING);
  });

  it('does not run when the form layer fails', () => {
    const lookup = fakeLookup();
    const e = withId('ap-9', () => withState('BOGUS', approval));
    const r = fullVerdict(e, { lookupApproval: lookup });
    expect(pairs(r)).toEqual([['PLAN_STATUS', 'agent_status.agent_state']]);
    expect(lookup).not.toHaveBeenCalled();
    expect(r.repair).toBe(validateEnvelope(e).repair);
  });

  it('is skipped when no lookup is given (no store file)', () => {
    expect(fullVerdict(withId('ap-9')).ok).toBe(true);
    expect(fullVerdict(withId('ap-9'), { consolidation: false }).ok).toBe(true);
  });

  it('appends one repair paragraph when the cross-check fails, per source', () => {
    for (const source of ['declaration', 'row'] as const) {
      const base = validateEnvelope(inProgress(), { source }).repair;
      const r = fullVerdict(withId('ap-9'), { source, lookupApproval: fakeLookup() });
      expect(r.repair.startsWith(`${base}\n\n`)).toBe(true);
      const paragraph = r.repair.slice(base.length + 2);
      expect(paragraph).not.toContain('\n');
      for (const w of ['handoff approval request', 'handoff approval list', 'remove approval_id'])
        expect(paragraph).toContain(w);
    }
  });

  it('lets a store error from the lookup propagate', () => {
    const lookupApproval = (): ApprovalLookupResult => {
      throw new HandoffError('STORE_UNREADABLE', 4, 'store unreadable');
    };
    expect(() => fullVerdict(withId('ap-1'), { lookupApproval })).toThrow(HandoffError);
  });
});
