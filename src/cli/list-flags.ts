/**
 * Flag checks of the read verbs (`contract list`, `approval list`, `contract gc`): all run before any store access,
 * and a failure is USAGE, exit 2.
 */
import { jsonQuote, usage } from '../errors.js';
import { ROW_STATES } from '../envelope/vocabulary.js';

/** Canonical decimal: no sign, no leading zero (`0` itself only), digits only; the same rule as every id flag. */
const INT_RE = /^(?:0|[1-9][0-9]*)$/;

/** An integer flag within [min, max] in canonical decimal (`01`, `+1`, `1.0` refused), or `fallback` when absent. */
export function intFlag(value: string | undefined, flag: string, min: number, max: number, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!INT_RE.test(value) || !Number.isSafeInteger(n) || n < min || n > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `an integer >= ${min}` : `an integer from ${min} to ${max}`;
    throw usage(`${flag} ${jsonQuote(value)} must be ${range}`);
  }
  return n;
}

/** An exact-match text filter: must not be blank. */
export function nonBlank(value: string | undefined, flag: string): string | undefined {
  if (value === undefined) return undefined;
  if (value.trim() === '') throw usage(`${flag} must not be blank`);
  return value;
}

/** `--state`: one of the seven row states, case-insensitive input, canonical upper case. */
export function rowStateFlag(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const upper = value.toUpperCase();
  if (!(ROW_STATES as readonly string[]).includes(upper)) {
    throw usage(`--state ${jsonQuote(value)} is not a row state (one of ${ROW_STATES.join(', ')})`);
  }
  return upper;
}

/** True when year-month-day names a real day (2026-02-30 and 2025-02-29 do not): the parsed date must round-trip. */
function isCalendarDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1 || day > 31) return false;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

const TIME_RE = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{3}))?)?(Z)?)?$/;

/**
 * `--since` / `--until`: `YYYY-MM-DD`, optionally `THH:MM[:SS[.sss]]` and `Z`. Returned without the `Z`: every stored
 * timestamp is UTC, and comparing the prefix without it keeps text comparison exact (`…T10:00` ≤ `…T10:00:00.000Z`).
 */
export function timeFlag(value: string | undefined, flag: string): string | undefined {
  if (value === undefined) return undefined;
  const m = TIME_RE.exec(value);
  const bad = (): never => {
    throw usage(
      `${flag} ${jsonQuote(value)} is not a UTC time prefix (YYYY-MM-DD, optionally THH:MM[:SS[.sss]] and Z)`,
    );
  };
  if (m === null) return bad();
  const [, y, mo, d, h, mi, s] = m;
  if (!isCalendarDate(Number(y), Number(mo), Number(d))) bad();
  if (h !== undefined && (Number(h) > 23 || Number(mi) > 59 || (s !== undefined && Number(s) > 59))) bad();
  return value.endsWith('Z') ? value.slice(0, -1) : value;
}

const DURATION_RE = /^(0|[1-9][0-9]{0,8})(s|m|h|d)$/;
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration such as `30m`, `2h`, `1d` (canonical whole number, unit s/m/h/d) in milliseconds, or `fallback`. */
export function durationFlag(value: string | undefined, flag: string, fallback: string): number {
  const text = value ?? fallback;
  const m = DURATION_RE.exec(text);
  if (m === null)
    throw usage(
      `${flag} ${jsonQuote(text)} is not a duration: a whole number and a unit, s, m, h or d (e.g. 30m, 2h, 1d)`,
    );
  return Number(m[1]) * UNIT_MS[m[2]];
}
