/**
 * The validator's public types. The code list is a const tuple so that `ErrorCode` and the code registry
 * (src/codes/validator.ts, keyed by `ErrorCode`) cannot drift apart.
 */

/** Every code the validator (form layer and approval cross-check) can emit, in the order of docs/errors.md. */
export const VALIDATOR_CODES = [
  'MISSING_FIELD',
  'PLAN_STATUS',
  'AGENT_ID_FORMAT',
  'FIELD_TYPE',
  'MISPLACED_KEY',
  'UNKNOWN_FIELD',
  'VERIFICATION_SHAPE',
  'VERIFICATION_RESULT',
  'COMPLETE_SHAPE',
  'RECEIPT_REF_SHAPE',
  'APPROVAL_REQUEST_SHAPE',
  'CONSOLIDATION_REPORT_SHAPE',
  'FAILURE_REPORT_SHAPE',
  'WORK_PHASE_SHAPE',
  'FILE_REFERENCE_SHAPE',
  'APPROVAL_ID_NOT_PENDING',
  'APPROVAL_FOREIGN',
  'APPROVAL_CONTENT_MISMATCH',
  'APPROVAL_ALREADY_USED',
  'APPROVAL_NOT_APPROVED',
] as const;

export type ErrorCode = (typeof VALIDATOR_CODES)[number];

export interface ValidationError {
  code: ErrorCode;
  /** Dotted path from the envelope root, list positions as `[i]`. */
  path: string;
  /** Guidance for the writer; tests assert codes and paths, and only required words of details. */
  detail: string;
}

export interface ValidationResult {
  /** `errors.length === 0`. */
  ok: boolean;
  /** Distinct codes, first-seen order. */
  codes: ErrorCode[];
  /** Every error, in the normative check order. */
  errors: ValidationError[];
  /** The repair text; always present, constant per source. */
  repair: string;
}

/** `declaration`: a draft, a file or a write. `row`: the gate judging a stored envelope. */
export type ValidationSource = 'declaration' | 'row';

export interface ValidateOptions {
  /** The turn is marked consolidation work: turns on check step 7. */
  consolidation?: boolean;
  source?: ValidationSource;
}

/**
 * Result of the injected approval lookup (store-backed in the CLI; a fake in tests). `contractId`, `fingerprint` and
 * `decidedAt` feed the binding checks (chain and decision time); a lookup that omits them skips those checks.
 */
export type ApprovalLookupResult =
  | { found: false }
  | {
      found: true;
      status: string;
      contractId?: string | null;
      /** The requesting agent: ownership of an approved or used approval without a contract. */
      agentId?: string | null;
      fingerprint?: string;
      decidedAt?: string | null;
      /** The handoff row that used the approval (status `used`). */
      usedByHandoffId?: number | null;
      /** The contract whose tool call used it (the pre-tool gate); a finalize in that contract's chain may cite it. */
      usedByContractId?: string | null;
    };

export interface FullVerdictOptions extends ValidateOptions {
  /**
   * Looks an approval id up in the store. Omitted when there is no store file: the cross-check is then skipped.
   * It may throw a HandoffError (store unreadable, ...); that propagates as a store error, not a validation result.
   */
  lookupApproval?: (id: string) => ApprovalLookupResult;
  /**
   * The contract ids of the citing contract's continuation chain: an approval requested by a contract outside it is
   * APPROVAL_FOREIGN. Omitted when there is no citing contract (`validate --file`): not checked. A function is called
   * only when an approval id resolves (the chain walk costs store reads).
   */
  approvalChain?: readonly string[] | (() => readonly string[]);
  /**
   * The gate only: when the row closed APPROVAL_REQUEST, its `finalized_at`. An approval that
   * is no longer pending but was decided after it is not a violation: the decision arrived after the turn ended.
   */
  turnEndedAt?: string | null;
  /**
   * Who is judging a cited approval outside APPROVAL_REQUEST: `write` (set/add/fill/patch, validate; the default)
   * accepts a pending or an approved approval; `close` (finalize, the gate) accepts only an approved one, or one
   * used by `citingHandoffId`.
   */
  approvalUse?: 'write' | 'close';
  /** The handoff row of the citing contract, when it has one: an approval it used is its own, not "already used". */
  citingHandoffId?: number | null;
  /** The citing contract's agent prefix: owns an approved or used approval requested without a contract. */
  citingAgentId?: string;
}
