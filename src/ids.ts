/**
 * Identity: minting (CSPRNG, never derived) and the flag checks that run before any file access (drafts spec §5).
 * Every id the tool mints is minted here, with nanoid's `customAlphabet` over the id's documented alphabet and
 * length (amendments-2 §S5); the formats are the specs' and do not change.
 */
import { customAlphabet } from 'nanoid';
import { EXIT, HandoffError, jsonQuote } from './errors.js';
import { AGENT_ID_RE, DRAFT_ID_RE } from './envelope/patterns.js';

const HEX = '0123456789abcdef';
/** The 16 hex digits after `a` (agent ids) and after `R-` (receipt ids). */
const hex16 = customAlphabet(HEX, 16);
/** The 12-hex draft token after the agent id. */
const hex12 = customAlphabet(HEX, 12);
/** The 32 hex digits after `P-` (approval ids). */
const hex32 = customAlphabet(HEX, 32);
/** The 8 hex digits that make a temp file name unique within one process. */
const hex8 = customAlphabet(HEX, 8);
/** A v4 UUID's 122 random bits: 30 free hex digits and the variant digit (8, 9, a or b). */
const uuidDigits = customAlphabet(HEX, 30);
const uuidVariant = customAlphabet('89ab', 1);

/** `a` + 16 lower-case hex (validator spec §2.6). */
export const mintAgentId = (): string => `a${hex16()}`;
/** The draft token: 12 lower-case hex (cli-contract-drafts.md §5). */
export const mintToken = (): string => hex12();
export const mintDraftId = (agentId: string): string => `${agentId}.${mintToken()}`;
/** `R-` + 16 lower-case hex (receipts.md §1.2). */
export const mintReceiptId = (): string => `R-${hex16()}`;
/** `P-` + 32 lower-case hex (store-and-finalize.md §11). */
export const mintApprovalId = (): string => `P-${hex32()}`;
/** A draft lock's owner token: 16 lower-case hex. */
export const mintLockToken = (): string => hex16();
/** The random part of a temp file name: 8 lower-case hex. */
export const mintTempTag = (): string => hex8();

/** A lower-case hyphenated v4 UUID, as `crypto.randomUUID()` prints it (evidence blob names, evidence.md §2). */
export function mintUuid(): string {
  const d = uuidDigits();
  return `${d.slice(0, 8)}-${d.slice(8, 12)}-4${d.slice(12, 15)}-${uuidVariant()}${d.slice(15, 18)}-${d.slice(18)}`;
}

/** The agent prefix of a draft id: everything before the first `.`. */
export const agentPrefix = (draftId: string): string => draftId.slice(0, draftId.indexOf('.'));

export const isDraftId = (v: unknown): v is string => typeof v === 'string' && DRAFT_ID_RE.test(v);
export const isAgentId = (v: unknown): v is string => typeof v === 'string' && AGENT_ID_RE.test(v);

/** `--draft-id` (and `--contract-id`, with `flag` naming it) must match the contract-id pattern in full. */
export function checkDraftId(value: string | undefined, flag = '--draft-id'): string | undefined {
  if (value === undefined) return undefined;
  if (!isDraftId(value)) {
    throw new HandoffError(
      'INVALID_DRAFT_ID',
      EXIT.USAGE,
      `${flag} ${jsonQuote(value)} is not a contract id (pattern ^a[0-9a-f]{16,}\\.[0-9a-f]{6,}$); copy the id printed by init or dispatch`,
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
      `${flag} ${jsonQuote(value)} is not an agent id (pattern ^a[0-9a-f]{16,}$; an exact id, never a glob)`,
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
