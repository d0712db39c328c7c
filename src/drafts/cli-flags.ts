/**
 * Flag definitions shared by the draft verbs and the checks that run before any file access (§5): both id flags,
 * their patterns and their agreement.
 */
import type { FlagDef, FlagValues } from '../cli/command.js';
import { usage } from '../errors.js';
import { checkDraftId, checkIdFlags } from '../ids.js';
import type { Addressing } from './resolve.js';

export const DRAFT_ID_FLAG: FlagDef = {
  type: 'string',
  valueName: 'ID',
  description: 'The draft (= contract) id printed by init or dispatch; exact, never a pattern',
};

export const AGENT_ID_FLAG: FlagDef = {
  type: 'string',
  valueName: 'ID',
  description: "Pick this agent's draft (an exact agent id, never a glob)",
};

export const JSON_FLAG: FlagDef = { type: 'boolean', description: 'Print exactly one JSON object on stdout' };

export const EXPLAIN_FLAG: FlagDef = {
  type: 'boolean',
  description: 'On a rejection, also print the full repair text (envelope template, close rules, order of writes)',
};

/** `--explain` (amendments-2.md §E1): a rejection carries the full repair text. */
export const explainFrom = (flags: FlagValues): boolean => flags.explain === true;

export const ADDRESSING_FLAGS: Record<string, FlagDef> = { 'draft-id': DRAFT_ID_FLAG, 'agent-id': AGENT_ID_FLAG };

export const stringFlag = (flags: FlagValues, name: string): string | undefined => {
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
