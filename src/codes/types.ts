import type { ExitCode } from '../errors.js';

/**
 * The code registry: every named code the tool can emit, with its default exit code and its documentation.
 * docs/errors.md is generated from this registry (npm run docs:errors) and a meta-test keeps both in step.
 * Each area's list is declared `as const satisfies readonly CodeEntry[]`, so the codes are a literal union (`Code`)
 * the compiler checks at every throw site.
 */
export interface CodeEntry {
  /** UPPER_SNAKE code; the value equals the name. */
  readonly code: string;
  /** Default exit code from the table (0/1/2/3/4/70); a verb may override it (exits.ts). Validator codes: 1. */
  readonly exit: ExitCode;
  /** Where it is emitted, e.g. "validator", "set, add, fill", "finalize", "gate (block)". */
  readonly where: string;
  /** When it fires (one or two sentences). */
  readonly when: string;
  /** The path(s) it reports, for codes that carry a path; omit otherwise. */
  readonly path?: string;
  /** How to repair (one or two sentences). */
  readonly repair: string;
}
