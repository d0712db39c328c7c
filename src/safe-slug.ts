/**
 * The safe-slug rule: brief names, ac ids and workspaces become path segments, so they are checked
 * on the raw value before any file or DB access. No trimming, no case folding, no Unicode normalization: the value is
 * used exactly as given or refused. A leaf module (errors only), so src/paths.ts can use it for workspaces.
 */
import { HandoffError, jsonQuote } from './errors.js';

export const SAFE_SLUG_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export const SLUG_RULE = '1-64 of A-Z a-z 0-9 . _ -, starting with a letter or digit, without ".."';

export const isSafeSlug = (value: unknown): value is string =>
  typeof value === 'string' && SAFE_SLUG_RE.test(value) && !value.includes('..');

/** Throws UNSAFE_SLUG (exit 2) naming `what` (a flag or argument) unless `value` is a safe slug. */
export function checkSlug(value: string, what: string, hint?: string): string {
  if (!isSafeSlug(value)) {
    throw new HandoffError(
      'UNSAFE_SLUG',
      `${what} ${jsonQuote(value)} is not a safe slug (${SLUG_RULE})`,
      { value },
      hint,
    );
  }
  return value;
}
