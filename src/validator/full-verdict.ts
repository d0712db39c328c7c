/**
 * The full verdict: the form layer, then, only if it passed, the approval cross-check through
 * an injected lookup. No I/O here: the caller passes a store-backed lookup, or none when there is no store file
 * (skipped). A lookup that throws (store unreadable, ...) propagates: that is a store error, not a verdict.
 */
import { createHash } from 'node:crypto';
import { isObject, own } from '../envelope/vocabulary.js';
import { details } from './details.js';
import { APPROVAL_REPAIR } from './repair.js';
import type { FullVerdictOptions, ValidationResult } from './types.js';
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

type ApprovalFinding = { code: 'APPROVAL_ID_NOT_PENDING' | 'APPROVAL_FOREIGN' | 'APPROVAL_CONTENT_MISMATCH'; path: string; detail: string };

/**
 * The one approval error, the first of: the id resolves to nothing; the approval belongs to a
 * contract outside the citing chain; exact_content is not the approved content; the approval is not pending (unless,
 * at the gate, it was decided after the turn ended).
 */
function approvalFinding(block: Record<string, unknown>, rawId: unknown, key: string | undefined, options: FullVerdictOptions, lookup: NonNullable<FullVerdictOptions['lookupApproval']>): ApprovalFinding | undefined {
  const shown = key ?? rawId;
  const found = key === undefined ? { found: false as const } : lookup(key);
  if (!found.found) return { code: 'APPROVAL_ID_NOT_PENDING', path: PATH, detail: details.approvalNotPending(shown, undefined) };
  const chainOption = options.approvalChain;
  const chain = typeof found.contractId !== 'string' ? undefined : typeof chainOption === 'function' ? chainOption() : chainOption;
  if (Array.isArray(chain) && typeof found.contractId === 'string' && !chain.includes(found.contractId)) {
    return { code: 'APPROVAL_FOREIGN', path: PATH, detail: details.approvalForeign(shown, found.contractId) };
  }
  const content = own(block, 'exact_content');
  if (typeof content === 'string' && typeof found.fingerprint === 'string' && sha256(content) !== found.fingerprint) {
    return { code: 'APPROVAL_CONTENT_MISMATCH', path: CONTENT_PATH, detail: details.approvalContentMismatch(shown) };
  }
  if (found.status === 'pending') return undefined;
  const ended = options.turnEndedAt;
  if (typeof ended === 'string' && typeof found.decidedAt === 'string' && found.decidedAt > ended) return undefined;
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

  const finding = approvalFinding(block, id, lookupKey(id), options, lookup);
  if (finding === undefined) return form;
  const { source } = readOptions(options);
  const result = resultOf([finding], source);
  return { ...result, repair: `${result.repair}\n\n${APPROVAL_REPAIR}` };
}
