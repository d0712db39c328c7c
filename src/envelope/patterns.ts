/**
 * The closed word lists and the patterns of the envelope. They sit below both
 * the zod declaration (schema.ts), which turns some of them into JSON Schema patterns, and the vocabulary
 * (vocabulary.ts), which re-exports them; so neither module imports the other's constants in a cycle.
 */

export const AGENT_STATES = [
  'IN_PROGRESS',
  'APPROVAL_REQUEST',
  'COMPLETE',
  'BLOCKED',
  'NEEDS_INPUT',
  'NEEDS_VERIFICATION',
] as const;
export type AgentState = (typeof AGENT_STATES)[number];

export const PHASES = ['framing', 'investigating', 'planning', 'executing', 'verifying'] as const;
export const SEVERITIES = ['info', 'warning', 'error'] as const;
export const OWNERSHIP_ASSESSMENTS = ['owned_here', 'cross_surface_dependency', 'not_my_surface'] as const;

/** The list sub-fields a marked consolidation report must carry, in check order. */
export const CONSOLIDATION_LISTS = ['confirmed_findings', 'suspected_findings', 'conflicts', 'open_gaps'] as const;

/** The id patterns. No flags: `$` matches only at the very end, so a trailing newline fails. */
export const AGENT_ID_RE = /^a[0-9a-f]{16,}$/;
export const DRAFT_ID_RE = /^a[0-9a-f]{16,}\.[0-9a-f]{6,}$/;
export const RECEIPT_ID_RE = /^R-[0-9a-f]{16}$/;
/** Applied to `commit.trim().toLowerCase()`. */
export const COMMIT_RE = /^[0-9a-f]{7,64}$/;

/**
 * The patterns below say the same things on the raw, untrimmed string, for the published JSON Schema (a JSON Schema
 * pattern cannot trim or change case). JavaScript's `\s` is exactly the set `trim()` removes.
 */
/** Not blank: at least one character that `trim()` keeps. */
export const NON_BLANK_RE = /\S/;
/** COMMIT_RE on the raw string. */
export const COMMIT_TEXT_RE = /^\s*[0-9a-fA-F]{7,64}\s*$/;

/** Token match of `words` (lower-case ASCII) on the raw string: surrounding whitespace, any case. */
export function tokenPattern(words: readonly string[]): RegExp {
  const caseless = (word: string): string =>
    [...word].map((c) => (c.toUpperCase() === c ? c : `[${c.toUpperCase()}${c}]`)).join('');
  return new RegExp(`^\\s*(?:${words.map(caseless).join('|')})\\s*$`);
}
