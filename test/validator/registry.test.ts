/** The validator's codes and the code registry stay in step: same codes, each documented and each reachable. */
import { describe, expect, it } from 'vitest';
import { validatorCodes } from '../../src/codes/validator.js';
import { fullVerdict, validateEnvelope, VALIDATOR_CODES, type ErrorCode } from '../../src/validator/index.js';
import { approval, complete, env, inProgress, withState } from '../helpers/validator.js';

/** One envelope per code that makes the validator emit it: proof that every registered code is reachable. */
const EMITTERS: Record<ErrorCode, () => string[]> = {
  MISSING_FIELD: () => validateEnvelope(null).codes,
  PLAN_STATUS: () => validateEnvelope(withState('BOGUS')).codes,
  AGENT_ID_FORMAT: () => validateEnvelope(env((e) => (e.agent_status.agent_id = 'x'))).codes,
  FIELD_TYPE: () => validateEnvelope(env((e) => (e.report_prose = 1))).codes,
  MISPLACED_KEY: () => validateEnvelope(env((e) => (e.agent_id = 'x'))).codes,
  UNKNOWN_FIELD: () => validateEnvelope(env((e) => (e.x = 1))).codes,
  VERIFICATION_SHAPE: () => validateEnvelope(env((e) => (e.evidence_report.verification = { type: 'code' }))).codes,
  VERIFICATION_RESULT: () =>
    validateEnvelope(env((e) => (e.evidence_report.verification.result = 'fail'), complete)).codes,
  COMPLETE_SHAPE: () => validateEnvelope(env((e) => (e.agent_status.pending_steps = ['x']), complete)).codes,
  RECEIPT_REF_SHAPE: () => validateEnvelope(env((e) => (e.evidence_report.verification = { receipt: 1 }))).codes,
  APPROVAL_REQUEST_SHAPE: () => validateEnvelope(env((e) => (e.approval_request = {}), approval)).codes,
  CONSOLIDATION_REPORT_SHAPE: () => validateEnvelope(withState('BLOCKED'), { consolidation: true }).codes,
  FAILURE_REPORT_SHAPE: () => validateEnvelope(env((e) => (e.failure_report = 'x'))).codes,
  WORK_PHASE_SHAPE: () => validateEnvelope(env((e) => (e.work_phase = 'x'))).codes,
  FILE_REFERENCE_SHAPE: () => validateEnvelope(env((e) => (e.evidence_report.files_checked = [{}]))).codes,
  APPROVAL_ID_NOT_PENDING: () =>
    fullVerdict(
      env((e) => (e.approval_request = { approval_id: 'x' }), inProgress),
      { lookupApproval: () => ({ found: false }) },
    ).codes,
  APPROVAL_FOREIGN: () =>
    fullVerdict(
      env((e) => (e.approval_request = { approval_id: 'x' }), inProgress),
      {
        lookupApproval: () => ({ found: true, status: 'pending', contractId: 'a0000000000000000.000000' }),
        approvalChain: ['a1111111111111111.111111'],
      },
    ).codes,
  APPROVAL_CONTENT_MISMATCH: () =>
    fullVerdict(
      env((e) => (e.approval_request = { approval_id: 'x', exact_content: 'y' }), inProgress),
      {
        lookupApproval: () => ({ found: true, status: 'pending', fingerprint: '0'.repeat(64) }),
      },
    ).codes,
  APPROVAL_ALREADY_USED: () =>
    fullVerdict(
      env((e) => (e.approval_request = { approval_id: 'x' }), inProgress),
      {
        lookupApproval: () => ({ found: true, status: 'used', usedByHandoffId: 7 }),
        citingHandoffId: 8,
      },
    ).codes,
  APPROVAL_NOT_APPROVED: () =>
    fullVerdict(
      env((e) => (e.approval_request = { approval_id: 'x' }), complete),
      {
        lookupApproval: () => ({ found: true, status: 'pending' }),
        approvalUse: 'close',
      },
    ).codes,
};

describe('validator code registry', () => {
  it('lists exactly the validator codes, in order', () => {
    expect(validatorCodes.map((c) => c.code)).toEqual([...VALIDATOR_CODES]);
    expect(new Set(VALIDATOR_CODES).size).toBe(VALIDATOR_CODES.length);
  });

  it.each(validatorCodes.map((c) => [c.code, c] as const))('%s is documented with exit 1', (_code, entry) => {
    expect(entry.exit).toBe(1);
    expect(entry.code).toMatch(/^[A-Z][A-Z_]+$/);
    for (const text of [entry.where, entry.when, entry.repair, entry.path ?? '']) expect(text.trim()).not.toBe('');
  });

  it.each(VALIDATOR_CODES.map((c) => [c]))('%s is emitted by the validator', (code) => {
    expect(EMITTERS[code]()).toEqual([code]);
  });
});
