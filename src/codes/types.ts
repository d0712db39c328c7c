/**
 * The code registry: every named code the tool can emit, with its exit code and its documentation.
 * docs/errors.md is generated from this registry (npm run docs:errors) and a meta-test keeps both in step.
 */
export interface CodeEntry {
  /** UPPER_SNAKE code; the value equals the name. */
  code: string;
  /** Exit code from the table (0/1/2/3/4/70). For validator codes: 1 (a validation rejection). */
  exit: number;
  /** Where it is emitted, e.g. "validator", "set, add, fill", "finalize", "gate (block)". */
  where: string;
  /** When it fires (one or two sentences). */
  when: string;
  /** The path(s) it reports, for codes that carry a path; omit otherwise. */
  path?: string;
  /** How to repair (one or two sentences). */
  repair: string;
}
