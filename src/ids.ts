/** Identity: minting (CSPRNG, never derived) and the flag checks that run before any file access (drafts spec §5). */
import { randomBytes } from 'node:crypto';
import { EXIT, HandoffError, jsonQuote } from './errors.js';
import { AGENT_ID_RE, DRAFT_ID_RE } from './envelope/vocabulary.js';

export const mintAgentId = (): string => `a${randomBytes(8).toString('hex')}`;
export const mintToken = (): string => randomBytes(6).toString('hex');
export const mintDraftId = (agentId: string): string => `${agentId}.${mintToken()}`;

/** The agent prefix of a draft id: everything before the first `.`. */
export const agentPrefix = (draftId: string): string => draftId.slice(0, draftId.indexOf('.'));

/**
 * Length bounds of the ids (amendments-2.md §H9): an agent id of at most 115 characters keeps a draft id (agent id,
 * `.`, 12 hex) within 128. Both are checked with the pattern, before any file access.
 */
export const MAX_AGENT_ID_LENGTH = 115;
export const MAX_DRAFT_ID_LENGTH = 128;

export const isDraftId = (v: unknown): v is string =>
  typeof v === 'string' && v.length <= MAX_DRAFT_ID_LENGTH && DRAFT_ID_RE.test(v) && v.indexOf('.') <= MAX_AGENT_ID_LENGTH;
export const isAgentId = (v: unknown): v is string => typeof v === 'string' && v.length <= MAX_AGENT_ID_LENGTH && AGENT_ID_RE.test(v);

/** `--draft-id` (and `--contract-id`, with `flag` naming it) must match the contract-id pattern in full. */
export function checkDraftId(value: string | undefined, flag = '--draft-id'): string | undefined {
  if (value === undefined) return undefined;
  if (!isDraftId(value)) {
    throw new HandoffError(
      'INVALID_DRAFT_ID',
      EXIT.USAGE,
      `${flag} ${jsonQuote(value)} is not a contract id (pattern ^a[0-9a-f]{16,}\\.[0-9a-f]{6,}$, at most ${MAX_DRAFT_ID_LENGTH} characters with an agent part of at most ${MAX_AGENT_ID_LENGTH}); copy the id printed by init or dispatch`,
    );
  }
  return value;
}

export function checkAgentId(value: string | undefined, flag = '--agent-id'): string | undefined {
  if (value === undefined) return undefined;
  if (!isAgentId(value)) {
    throw new HandoffError(
      'INVALID_AGENT_ID',
      EXIT.USAGE,
      `${flag} ${jsonQuote(value)} is not an agent id (pattern ^a[0-9a-f]{16,}$, at most ${MAX_AGENT_ID_LENGTH} characters; an exact id, never a glob)`,
    );
  }
  return value;
}

/** Checks both flags and their agreement (the draft id's prefix must equal the agent id). */
export function checkIdFlags(draftId: string | undefined, agentId: string | undefined): { draftId?: string; agentId?: string } {
  checkDraftId(draftId);
  checkAgentId(agentId);
  if (draftId !== undefined && agentId !== undefined && agentPrefix(draftId) !== agentId) {
    throw new HandoffError(
      'DRAFT_ID_AGENT_MISMATCH',
      EXIT.USAGE,
      `--draft-id ${jsonQuote(draftId)} does not belong to --agent-id ${jsonQuote(agentId)} (its prefix is ${jsonQuote(agentPrefix(draftId))})`,
    );
  }
  return { draftId, agentId };
}
