/**
 * VALUE parsing and FIELD paths of `set`/`add`. Pure.
 */
import { exceedsDepth, hasNonFinite, MAX_JSON_DEPTH, notRepresentable, tooDeep, tryParseJson } from '../json.js';
import { fieldPathTooDeep, invalidFieldPath } from './errors.js';

/**
 * Strict JSON of the whole argument (surrounding whitespace allowed) → the parsed value; anything else → the
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
 * A VALUE that looks like a JSON object or array but does not parse is still stored as a string; say so on
 * stderr, because that is almost always a typo (a missing brace, a trailing comma) rather than the intent.
 */
export function notJsonNotice(arg: string): string | undefined {
  const head = arg.trimStart()[0];
  if (head !== '{' && head !== '[') return undefined;
  const r = tryParseJson(arg);
  return r.ok
    ? undefined
    : `[NOT JSON] VALUE is not valid JSON (${r.message.replace(/\s+/g, ' ')}); it is stored as the string given`;
}

/**
 * Split on `.`; every segment non-empty, and at most MAX_JSON_DEPTH segments, since a longer path could never
 * be stored (INVALID_FIELD_PATH, exit 2). Segments are literal keys.
 */
export function parseFieldPath(field: string): string[] {
  const segments = field.split('.');
  if (segments.some((s) => s === '')) throw invalidFieldPath(field);
  if (segments.length > MAX_JSON_DEPTH) throw fieldPathTooDeep(field, segments.length, MAX_JSON_DEPTH);
  return segments;
}
