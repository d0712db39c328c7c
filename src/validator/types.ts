/**
 * The validator's public types. The code list is a const tuple so that `ErrorCode` and the code registry
 * (src/codes/validator.ts, keyed by `ErrorCode`) cannot drift apart.
 */

/** Every code the validator (form layer and approval cross-check) can emit, in validator spec §4 order. */
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
] as const;

export type ErrorCode = (typeof VALIDATOR_CODES)[number];

export interface ValidationError {
  code: ErrorCode;
  /** Dotted path from the envelope root, list positions as `[i]`. */
  path: string;
  /** Guidance for the writer (§11.2); tests assert codes and paths, and only required words of details. */
  detail: string;
}

export interface ValidationResult {
  /** `errors.length === 0`. */
  ok: boolean;
  /** Distinct codes, first-seen order. */
  codes: ErrorCode[];
  /** Every error, in the normative check order (§5). */
  errors: ValidationError[];
  /** The repair text (§11.1); always present, constant per source. */
  repair: string;
}

/** `declaration`: a draft, a file or a write. `row`: the gate judging a stored envelope. */
export type ValidationSource = 'declaration' | 'row';

export interface ValidateOptions {
  /** The turn is marked consolidation work (§7.3): turns on check step 7. */
  consolidation?: boolean;
  source?: ValidationSource;
}

/** Result of the injected approval lookup (store-backed in the CLI; a fake in tests). */
export type ApprovalLookupResult = { found: false } | { found: true; status: string };

export interface FullVerdictOptions extends ValidateOptions {
  /**
   * Looks an approval id up in the store. Omitted when there is no store file: the cross-check is then skipped.
   * It may throw a HandoffError (store unreadable, ...); that propagates as a store error, not a validation result.
   */
  lookupApproval?: (id: string) => ApprovalLookupResult;
}
