/**
 * The library API: what a Node harness imports instead of spawning the CLI.
 * Pure functions only at this entry; nothing here opens a file or the store.
 */
import { canonicalizeEnvelope, fullVerdict, validateEnvelope } from './validator/index.js';
import { initialEnvelope } from './envelope/vocabulary.js';
import { EXIT, HandoffError } from './errors.js';

export { canonicalizeEnvelope, fullVerdict, validateEnvelope, initialEnvelope, EXIT, HandoffError };
export type { ValidationError, ValidationResult, ErrorCode } from './validator/index.js';
/** The envelope's structure, inferred from its zod declaration (src/envelope/schema.ts). */
export type { AgentStatus, Envelope, EvidenceReport, FailureReport, FileReference, Verification } from './envelope/schema.js';

export default { validateEnvelope, canonicalizeEnvelope, fullVerdict, initialEnvelope };
