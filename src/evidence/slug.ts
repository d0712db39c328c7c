/**
 * The safe-slug rule (evidence.md §1.1): brief names, ac ids and the workspace segment of a blob path become path
 * segments, so they are checked on the raw value before any file or DB access. No trimming, no case folding, no
 * Unicode normalization: the value is used exactly as given or refused.
 */
import { EXIT, HandoffError, jsonQuote } from '../errors.js';
import { resolveWorkspace, type Env } from '../paths.js';

export const SAFE_SLUG_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export const SLUG_RULE = '1-64 of A-Z a-z 0-9 . _ -, starting with a letter or digit, without ".."';

export const isSafeSlug = (value: unknown): value is string =>
  typeof value === 'string' && SAFE_SLUG_RE.test(value) && !value.includes('..');

/** Throws UNSAFE_SLUG (exit 2) naming `what` (a flag or argument) unless `value` is a safe slug. */
export function checkSlug(value: string, what: string, hint?: string): string {
  if (!isSafeSlug(value)) {
    throw new HandoffError(
      'UNSAFE_SLUG',
      EXIT.USAGE,
      `${what} ${jsonQuote(value)} is not a safe slug (${SLUG_RULE})`,
      { value },
      hint,
    );
  }
  return value;
}

/**
 * The workspace of a verb that mints a blob path or looks up a brief (§1.2): resolved as everywhere else, then it
 * must be a safe slug; it is never rewritten into a different name.
 */
export function workspaceSlug(flag: string | undefined, env: Env, cwd: string): string {
  const ws = resolveWorkspace(flag, env, cwd);
  const source = flag !== undefined ? '--workspace' : env.HANDOFF_WORKSPACE?.trim() ? '$HANDOFF_WORKSPACE' : 'the derived workspace';
  return checkSlug(ws, source, 'pass --workspace <slug> or set $HANDOFF_WORKSPACE');
}
