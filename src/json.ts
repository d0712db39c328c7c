/** Strict JSON parsing shared by every JSON argument (VALUE, patches, files). */
import { EXIT, HandoffError } from './errors.js';

/** True when a parsed value holds a number that overflowed to ±Infinity (JSON.parse yields Infinity for 1e400). */
export function hasNonFinite(value: unknown): boolean {
  if (typeof value === 'number') return !Number.isFinite(value);
  if (Array.isArray(value)) return value.some(hasNonFinite);
  if (value !== null && typeof value === 'object') return Object.values(value).some(hasNonFinite);
  return false;
}

export type JsonParse = { ok: true; value: unknown } | { ok: false; message: string };

export function tryParseJson(text: string): JsonParse {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (e) {
    return { ok: false, message: (e as Error).message };
  }
}

export const notRepresentable = (text: string): HandoffError =>
  new HandoffError(
    'VALUE_NOT_REPRESENTABLE',
    EXIT.USAGE,
    `a number in ${JSON.stringify(text.length > 80 ? `${text.slice(0, 77)}...` : text)} overflows to Infinity; quote it to keep it as a string`,
  );

/** Parses strict JSON or throws INVALID_JSON / VALUE_NOT_REPRESENTABLE (exit 2). `what` names the input. */
export function parseJsonStrict(text: string, what: string): unknown {
  const r = tryParseJson(text);
  if (!r.ok) throw new HandoffError('INVALID_JSON', EXIT.USAGE, `${what} is not valid JSON: ${r.message}`);
  if (hasNonFinite(r.value)) throw notRepresentable(text);
  return r.value;
}

export function jsonTypeOf(value: unknown): string {
  if (value === undefined) return 'absent';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'object' ? 'object' : typeof value;
}
