/**
 * RFC 8785 JSON Canonicalization Scheme for the values a receipt row holds (strings, finite numbers, null, booleans,
 * arrays, objects) and the row digest `row_sha256`.
 */
import { createHash } from 'node:crypto';

/**
 * JCS text of a JSON value: object members sorted by their keys' UTF-16 code units, no whitespace, strings as
 * ECMAScript JSON.stringify writes them and numbers in ECMAScript shortest form (both exactly what RFC 8785 section 3.2.2
 * prescribes). Throws on a value JSON cannot represent (undefined, NaN, Infinity, a function, a bigint).
 */
export function canonicalJson(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`JCS cannot represent the number ${String(value)}`);
      // ECMAScript Number::toString is the RFC 8785 number form; -0 serializes as 0.
      return JSON.stringify(value);
    case 'object': {
      if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
      const obj = value as Record<string, unknown>;
      // Default sort compares UTF-16 code units, which is the order RFC 8785 section 3.2.3 requires.
      const keys = Object.keys(obj)
        .filter((k) => obj[k] !== undefined)
        .sort();
      return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(',')}}`;
    }
    default:
      throw new TypeError(`JCS cannot represent a value of type ${typeof value}`);
  }
}

export const sha256Hex = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');
