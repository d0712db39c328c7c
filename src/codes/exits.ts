/**
 * Exits that differ by verb. A code's exit is its registry default everywhere except for the verbs listed here; the
 * override is applied in one place, where a failure becomes output (src/cli/output.ts), never at a throw site.
 */
import { EXIT, type ExitCode } from '../errors.js';
import type { Code } from './index.js';

/** Per code, or `*` for every code of the verb that has no entry of its own. INTERNAL (a bug) is never overridden. */
export type VerbExits = Readonly<Partial<Record<Code | '*', ExitCode>>>;

export const VERB_EXITS = {
  // The stop gate speaks the hook protocol: exit 2 would block the agent, so every failure of the gate itself
  // (bad input included) exits 1, "stop not gated".
  'contract gate': { '*': EXIT.REJECTED },
  // An unknown receipt id asked for by name is "not found"; cited in an envelope (finalize) it is a rejection.
  'evidence show': { RECEIPT_NOT_FOUND: EXIT.NOT_FOUND },
} as const satisfies Readonly<Record<string, VerbExits>>;

type OverridingVerb = keyof typeof VERB_EXITS;

/**
 * The exit of a failure with `code` in verb `verbId` (`contract gate`; undefined outside a verb): the verb's
 * override, else `exit` (what the error carries: the registry default unless the throw site still names one).
 */
export function verbExit(verbId: string | undefined, code: string, exit: number): number {
  if (exit === EXIT.INTERNAL || verbId === undefined || !Object.hasOwn(VERB_EXITS, verbId)) return exit;
  const table: VerbExits = VERB_EXITS[verbId as OverridingVerb];
  return table[code as Code] ?? table['*'] ?? exit;
}
