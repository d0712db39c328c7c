/**
 * VALUE parsing and FIELD paths of `set`/`add` (cli-contract-drafts.md §12.1, §12.2). Pure.
 */
import { exceedsDepth, hasNonFinite, MAX_JSON_DEPTH, notRepresentable, tooDeep, tryParseJson } from '../json.js';
import { fieldPathTooDeep, invalidFieldPath } from './errors.js';

/**
 * §12.1: strict JSON of the whole argument (surrounding whitespace allowed) → the parsed value; anything else → the
 * argument itself as a string. A number overflowing to ±Infinity anywhere, or containers nested deeper than
 * MAX_JSON_DEPTH → VALUE_NOT_REPRESENTABLE (exit 2).
 */
export function parseValueArg(arg: string): unknown {
  const r = tryParseJson(arg);
  if (!r.ok) return arg;
  if (exceedsDepth(r.value)) throw tooDeep('VALUE');
  if (hasNonFinite(r.value)) throw notRepresentable(arg);
  return r.value;
}

/**
 * §12.2: split on `.`; every segment non-empty, and at most MAX_JSON_DEPTH segments, since a longer path could never
 * be stored (INVALID_FIELD_PATH, exit 2). Segments are literal keys.
 */
export function parseFieldPath(field: string): string[] {
  const segments = field.split('.');
  if (segments.some((s) => s === '')) throw invalidFieldPath(field);
  if (segments.length > MAX_JSON_DEPTH) throw fieldPathTooDeep(field, segments.length, MAX_JSON_DEPTH);
  return segments;
}
