/**
 * The library API: what a Node harness imports instead of spawning the CLI.
 * Pure functions at this entry, plus stopGate, which runs the stop gate (in a Node child process) only when called.
 */
import { canonicalizeEnvelope, fullVerdict, validateEnvelope } from './validator/index.js';
import { initialEnvelope } from './envelope/vocabulary.js';
import { EXIT, HandoffError } from './errors.js';

export { canonicalizeEnvelope, fullVerdict, validateEnvelope, initialEnvelope, EXIT, HandoffError };
export { stopGate } from './hooks/stop-gate-api.js';
export type { StopGateRequest, StopGateResult } from './hooks/stop-gate-api.js';
export type { ValidationError, ValidationResult, ErrorCode } from './validator/index.js';
/** The envelope's structure, inferred from its zod declaration (src/envelope/schema.ts). */
export type {
  AgentStatus,
  Envelope,
  EvidenceReport,
  FailureReport,
  FileReference,
  Verification,
} from './envelope/schema.js';

export default { validateEnvelope, canonicalizeEnvelope, fullVerdict, initialEnvelope };
