/**
 * The checks of the draft verbs' flags that run before any file access: both id flags, their patterns and
 * their agreement. (The flag definitions themselves are oclif's: src/cli/flags.ts.)
 */
import type { FlagValues } from '../input/flag-values.js';
import { usage } from '../errors.js';
import { checkDraftId, checkIdFlags } from '../ids.js';
import type { Addressing } from './resolve.js';

/** `--explain`: a rejection carries the full repair text. */
export const explainFrom = (flags: FlagValues): boolean => flags.explain === true;

const stringFlag = (flags: FlagValues, name: string): string | undefined => {
  const v = flags[name];
  return typeof v === 'string' ? v : undefined;
};

/** `--draft-id` / `--agent-id` checked (INVALID_DRAFT_ID, INVALID_AGENT_ID, DRAFT_ID_AGENT_MISMATCH; exit 2). */
export function addressingFrom(flags: FlagValues): Addressing {
  const { draftId, agentId } = checkIdFlags(stringFlag(flags, 'draft-id'), stringFlag(flags, 'agent-id'));
  return { ...(draftId === undefined ? {} : { draftId }), ...(agentId === undefined ? {} : { agentId }) };
}

/**
 * The contract id of `--draft-id ID | --contract-id ID` (synonyms): exactly one of them (else USAGE with `message`),
 * checked as a contract id (INVALID_DRAFT_ID, exit 2).
 */
export function contractIdFrom(flags: FlagValues, message: string): string {
  const byDraft = stringFlag(flags, 'draft-id');
  const byContract = stringFlag(flags, 'contract-id');
  if (byContract !== undefined && byDraft === undefined) {
    checkDraftId(byContract, '--contract-id');
    return byContract;
  }
  if (byDraft !== undefined && byContract === undefined) {
    checkDraftId(byDraft, '--draft-id');
    return byDraft;
  }
  throw usage(message);
}
