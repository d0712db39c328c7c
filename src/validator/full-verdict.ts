/**
 * The full verdict: the form layer, then, only if it passed, the approval cross-check through
 * an injected lookup. No I/O here: the caller passes a store-backed lookup, or none when there is no store file
 * (skipped). A lookup that throws (store unreadable, ...) propagates: that is a store error, not a verdict.
 */
import { createHash } from 'node:crypto';
import { isObject, own } from '../envelope/vocabulary.js';
import { details } from './details.js';
import { APPROVAL_REPAIR } from './repair.js';
import type { ApprovalLookupResult, FullVerdictOptions, ValidationResult } from './types.js';
import { readOptions, resultOf, validateEnvelope } from './validate.js';

const PATH = 'approval_request.approval_id';
const CONTENT_PATH = 'approval_request.exact_content';

/** The key an approval id is looked up by: a trimmed string, a number's JSON text; other types never resolve. */
function lookupKey(id: unknown): string | undefined {
  if (typeof id === 'string') return id.trim();
  if (typeof id === 'number') return JSON.stringify(id);
  return undefined;
}

/** The injected lookup, when `options` (possibly from plain JS) is an object that carries a function. */
function lookupOf(options: FullVerdictOptions): FullVerdictOptions['lookupApproval'] {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) return undefined;
  const { lookupApproval } = options;
  return typeof lookupApproval === 'function' ? lookupApproval : undefined;
}

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

type ApprovalFinding = {
  code:
    | 'APPROVAL_ID_NOT_PENDING'
    | 'APPROVAL_FOREIGN'
    | 'APPROVAL_CONTENT_MISMATCH'
    | 'APPROVAL_ALREADY_USED'
    | 'APPROVAL_NOT_APPROVED';
  path: string;
  detail: string;
};
type Found = Extract<ApprovalLookupResult, { found: true }>;

/** The citing chain, when the caller knows the citing contract (undefined for `validate --file`). */
function chainOf(options: FullVerdictOptions): readonly string[] | undefined {
  const c = options.approvalChain;
  const chain = typeof c === 'function' ? c() : c;
  return Array.isArray(chain) ? chain : undefined;
}

/**
 * Ownership. A pending (or refused) approval requested by a contract must be of the citing chain. An approved or
 * used one authorizes an action, so it must be owned outright: its contract in the chain, else (no contract) its
 * agent the citing agent; an approval naming neither is no one's. Undefined: owned, or no citing contract to judge.
 */
function foreignOwner(found: Found, options: FullVerdictOptions): string | undefined {
  const strict = found.status === 'approved' || found.status === 'used';
  if (!strict && typeof found.contractId !== 'string') return undefined;
  const chain = chainOf(options);
  if (chain === undefined) return undefined;
  if (typeof found.contractId === 'string')
    return chain.includes(found.contractId) ? undefined : `contract ${JSON.stringify(found.contractId)}`;
  const agent =
    options.citingAgentId ?? (chain[0] === undefined ? undefined : chain[0].slice(0, chain[0].indexOf('.')));
  if (typeof found.agentId === 'string')
    return found.agentId === agent ? undefined : `agent ${JSON.stringify(found.agentId)}`;
  return 'no contract and no agent';
}

/**
 * The one approval error, the first of: the id resolves to nothing; the approval is not the citing contract's;
 * exact_content is not the approved content; the approval was used by another handoff; its status does not fit the
 * envelope's state (APPROVAL_REQUEST waits for a pending one; any other state executes an approved one).
 */
function approvalFinding(
  block: Record<string, unknown>,
  state: unknown,
  rawId: unknown,
  key: string | undefined,
  options: FullVerdictOptions,
  lookup: NonNullable<FullVerdictOptions['lookupApproval']>,
): ApprovalFinding | undefined {
  const shown = key ?? rawId;
  const found = key === undefined ? { found: false as const } : lookup(key);
  if (!found.found)
    return { code: 'APPROVAL_ID_NOT_PENDING', path: PATH, detail: details.approvalNotPending(shown, undefined) };
  const foreign = foreignOwner(found, options);
  if (foreign !== undefined)
    return { code: 'APPROVAL_FOREIGN', path: PATH, detail: details.approvalForeign(shown, foreign) };
  const content = own(block, 'exact_content');
  const decided = found.status === 'approved' || found.status === 'used';
  // An approved content executes: only the exact string passes. Before approval a missing content is the form
  // layer's business (APPROVAL_REQUEST_SHAPE), so only a string that differs is reported.
  const mismatch =
    typeof found.fingerprint === 'string' &&
    (typeof content === 'string' ? sha256(content) !== found.fingerprint : decided);
  if (mismatch)
    return { code: 'APPROVAL_CONTENT_MISMATCH', path: CONTENT_PATH, detail: details.approvalContentMismatch(shown) };

  const waiting = state === 'APPROVAL_REQUEST';
  // The gate on a turn that ended waiting: a decision taken after it ended (and a later use) is not its violation.
  const ended = options.turnEndedAt;
  if (waiting && typeof ended === 'string' && typeof found.decidedAt === 'string' && found.decidedAt > ended)
    return undefined;
  const citing = options.citingHandoffId ?? null;
  // Used here: by this handoff row, or by a tool call of a contract of the citing chain (the pre-tool gate).
  const byCall = found.usedByContractId;
  const usedHere =
    found.status === 'used' &&
    ((citing !== null && found.usedByHandoffId === citing) ||
      (typeof byCall === 'string' && chainOf(options)?.includes(byCall) === true));
  if (found.status === 'used' && !usedHere) {
    return {
      code: 'APPROVAL_ALREADY_USED',
      path: PATH,
      detail: details.approvalAlreadyUsed(shown, found.usedByHandoffId ?? null),
    };
  }
  if (waiting) {
    return found.status === 'pending'
      ? undefined
      : { code: 'APPROVAL_ID_NOT_PENDING', path: PATH, detail: details.approvalNotPending(shown, found.status) };
  }
  if (found.status === 'approved' || usedHere) return undefined;
  if (found.status === 'pending') {
    return options.approvalUse === 'close'
      ? { code: 'APPROVAL_NOT_APPROVED', path: PATH, detail: details.approvalNotApproved(shown) }
      : undefined;
  }
  return { code: 'APPROVAL_ID_NOT_PENDING', path: PATH, detail: details.approvalNotPending(shown, found.status) };
}

/**
 * The key the cross-check would look up for `envelope` (approval_request.approval_id, trimmed), or undefined when it
 * cites none or an id that never resolves. Callers with an asynchronous store fetch this one approval first.
 */
export function citedApprovalKey(envelope: unknown): string | undefined {
  if (!isObject(envelope)) return undefined;
  const block = own(envelope, 'approval_request');
  return isObject(block) ? lookupKey(own(block, 'approval_id')) : undefined;
}

export function fullVerdict(envelope: unknown, options: FullVerdictOptions = {}): ValidationResult {
  const form = validateEnvelope(envelope, options);
  const lookup = lookupOf(options);
  if (!form.ok || lookup === undefined || !isObject(envelope)) return form;

  const block = own(envelope, 'approval_request');
  if (!isObject(block)) return form;
  const id = own(block, 'approval_id');
  if (id === undefined || id === null || (typeof id === 'string' && id.trim() === '')) return form;

  const status = own(envelope, 'agent_status');
  const state = isObject(status) ? own(status, 'agent_state') : undefined;
  const finding = approvalFinding(block, state, id, lookupKey(id), options, lookup);
  if (finding === undefined) return form;
  const { source } = readOptions(options);
  const result = resultOf([finding], source);
  return { ...result, repair: `${result.repair}\n\n${APPROVAL_REPAIR}` };
}
