/** Public API of the validator: the form layer, the full verdict, canonicalization and their types. */
export { validateEnvelope } from './validate.js';
export { citedApprovalKey, fullVerdict } from './full-verdict.js';
export { canonicalizeEnvelope } from './canonicalize.js';
export type { CanonicalChange } from './canonicalize.js';
export { VALIDATOR_CODES } from './types.js';
export type {
  ApprovalLookupResult,
  ErrorCode,
  FullVerdictOptions,
  ValidationError,
  ValidationResult,
} from './types.js';
