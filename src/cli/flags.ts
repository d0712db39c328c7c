/**
 * oclif flag definitions shared by several verbs, and the builders of typed flags: oclif parses a value into its
 * type, and a bad value is the tool's USAGE error (exit 2) with the verb's usage line (src/cli/parse-errors.ts).
 */
import * as Flags from '@oclif/core/flags';
import type { Interfaces } from '@oclif/core';
import { intFlag } from './list-flags.js';
import { DEFAULT_TIMEOUT_SEC, MAX_TIMEOUT_SEC } from '../receipts/options.js';

export const DRAFT_ID_FLAG = Flags.string({
  helpValue: 'ID',
  description: 'The draft (= contract) id printed by init or dispatch; exact, never a pattern',
});

export const AGENT_ID_FLAG = Flags.string({
  helpValue: 'ID',
  description: "Pick this agent's draft (an exact agent id, never a glob)",
});

export const JSON_FLAG = Flags.boolean({ description: 'Print exactly one JSON object on stdout' });

export const EXPLAIN_FLAG = Flags.boolean({
  description: 'On a rejection, also print the full repair text (envelope template, close rules, order of writes)',
});

export const ADDRESSING_FLAGS = { 'draft-id': DRAFT_ID_FLAG, 'agent-id': AGENT_ID_FLAG };

export const TIMEOUT_FLAG = Flags.string({
  helpValue: 'SECONDS',
  description: `Kill the command's process group after this many seconds (TERM, then KILL after 5 s); 1..${MAX_TIMEOUT_SEC}, default ${DEFAULT_TIMEOUT_SEC}`,
});

export const WORKSPACE_FLAG = Flags.string({
  helpValue: 'NAME',
  description: 'Workspace slug (names the blob folder); default $HANDOFF_WORKSPACE, else the git top-level folder name',
});

/** Where a write lands, said once for set, add, fill and patch. */
export const WRITE_TARGET_HELP =
  'Without --draft-id or --agent-id the write goes to the newest draft born in the current workspace (never another ' +
  "workspace's; a [RESOLVED] notice names it). A write to a contract that was already finalized (closed) does not " +
  'change it: it opens a continuation under a new contract id and says so ([CONTINUATION opened] on stderr naming ' +
  'the closed contract, its state and the new id; `continuation` in the JSON). Use the new id from then on.';

/** The typed flag values of a verb class, as oclif's parse gives them to `perform`. */
export type FlagsOf<C extends { flags?: unknown }> = Interfaces.InferredFlags<C['flags']>;

/** What a typed flag shows in help, and the flags it cannot go with. */
interface FlagText {
  helpValue?: string;
  description: string;
  exclusive?: string[];
}

/** A flag whose text `check` checks and normalizes (or refuses with a HandoffError, USAGE) while oclif parses. */
export const checkedText = (check: (raw: string) => string, opts: FlagText) =>
  Flags.custom<string>({ parse: (raw: string) => Promise.resolve(check(raw)) })({ ...opts });

/**
 * A whole number within [min, max] written in canonical decimal (`01`, `+1`, `1.0` refused, unlike oclif's own
 * integer flag), e.g. `--limit`. Absent, it is undefined: the verb applies its default.
 */
export const wholeNumber = (name: string, min: number, max: number, opts: FlagText) =>
  Flags.custom<number>({ parse: (raw: string) => Promise.resolve(intFlag(raw, `--${name}`, min, max, min)) })({
    ...opts,
  });
