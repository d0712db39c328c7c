/**
 * The full verdict (validator spec §8): the form layer, then, only if it passed, the approval cross-check through
 * an injected lookup. No I/O here: the caller passes a store-backed lookup, or none when there is no store file
 * (skipped). A lookup that throws (store unreadable, ...) propagates: that is a store error, not a verdict.
 */
import { isObject, own } from '../envelope/vocabulary.js';
import { details } from './details.js';
import { APPROVAL_REPAIR } from './repair.js';
import type { FullVerdictOptions, ValidationResult } from './types.js';
import { readOptions, resultOf, validateEnvelope } from './validate.js';

const PATH = 'approval_request.approval_id';

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

export function fullVerdict(envelope: unknown, options: FullVerdictOptions = {}): ValidationResult {
  const form = validateEnvelope(envelope, options);
  const lookup = lookupOf(options);
  if (!form.ok || lookup === undefined || !isObject(envelope)) return form;

  const block = own(envelope, 'approval_request');
  if (!isObject(block)) return form;
  const id = own(block, 'approval_id');
  if (id === undefined || id === null || (typeof id === 'string' && id.trim() === '')) return form;

  const key = lookupKey(id);
  const found = key === undefined ? { found: false as const } : lookup(key);
  if (found.found && found.status === 'pending') return form;

  const status = found.found ? found.status : undefined;
  const { source } = readOptions(options);
  const result = resultOf(
    [{ code: 'APPROVAL_ID_NOT_PENDING', path: PATH, detail: details.approvalNotPending(key ?? id, status) }],
    source,
  );
  return { ...result, repair: `${result.repair}\n\n${APPROVAL_REPAIR}` };
}
