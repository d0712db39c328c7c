/**
 * Bounded JSON rendering for messages (values in texts are JSON text, truncated to about 80 characters).
 * Unlike JSON.stringify + slice, it stops as soon as the budget is spent, so a 100 MB string or a 100,000-deep
 * array costs no more than a short one and can never overflow the stack: every nesting level spends at least one
 * character of the budget.
 */
import { isObject } from '../envelope/vocabulary.js';

export const QUOTE_MAX = 80;

export function quote(value: unknown, max = QUOTE_MAX): string {
  if (value === undefined) return 'absent';
  const parts: string[] = [];
  let length = 0;
  const emit = (s: string): boolean => {
    parts.push(s);
    length += s.length;
    return length <= max;
  };
  const walk = (v: unknown): boolean => {
    if (typeof v === 'string') return emit(JSON.stringify(v.length > max ? v.slice(0, max) : v));
    if (typeof v === 'number') return emit(Number.isFinite(v) ? JSON.stringify(v) : String(v));
    if (typeof v === 'boolean' || v === null) return emit(String(v));
    if (Array.isArray(v)) {
      if (!emit('[')) return false;
      for (let i = 0; i < v.length; i++) {
        if (i > 0 && !emit(',')) return false;
        if (!walk(v[i] === undefined ? null : v[i])) return false;
      }
      return emit(']');
    }
    if (isObject(v)) {
      if (!emit('{')) return false;
      let first = true;
      for (const key in v) {
        if (!Object.hasOwn(v, key)) continue;
        if (!first && !emit(',')) return false;
        first = false;
        if (!emit(JSON.stringify(key.length > max ? key.slice(0, max) : key) + ':')) return false;
        if (!walk(v[key])) return false;
      }
      return emit('}');
    }
    // Left: what JSON has no text for (undefined, a bigint, a symbol, a function).
    return emit(typeof v === 'bigint' || typeof v === 'symbol' || typeof v === 'function' ? v.toString() : 'undefined');
  };
  walk(value);
  const text = parts.join('');
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}

/** "a string", "an array", "an object" for FIELD_TYPE details. */
export const article = (typeName: string): string => (/^[aeiou]/.test(typeName) ? `an ${typeName}` : `a ${typeName}`);
