/** Strict JSON parsing shared by every JSON argument (VALUE, patches, files). Walks are iterative: no input depth can
 * overflow the stack. */
import { HandoffError } from './errors.js';
import { describeJsonError } from './json-error.js';

/**
 * The deepest nesting a stored envelope may have. SQLite's json_valid() refuses documents nested deeper than 1000
 * levels, and no real handoff needs more than a handful, so writes refuse deeper values with a named code instead of
 * failing later in the store.
 */
export const MAX_JSON_DEPTH = 512;

/** Visits every value of a JSON tree without recursion; `visit` returns true to stop early. */
function walk(root: unknown, visit: (value: unknown, depth: number) => boolean): boolean {
  const stack: [unknown, number][] = [[root, 1]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop() as [unknown, number];
    if (visit(value, depth)) return true;
    if (value !== null && typeof value === 'object') {
      for (const child of Object.values(value)) stack.push([child, depth + 1]);
    }
  }
  return false;
}

/** True when a parsed value holds a number that overflowed to ±Infinity (JSON.parse yields Infinity for 1e400). */
export const hasNonFinite = (value: unknown): boolean =>
  walk(value, (v) => typeof v === 'number' && !Number.isFinite(v));

/** True when containers nest deeper than `max` levels (a scalar has depth 0, `[]` depth 1, `[[1]]` depth 2). */
export const exceedsDepth = (value: unknown, max: number = MAX_JSON_DEPTH): boolean =>
  walk(value, (v, depth) => v !== null && typeof v === 'object' && depth > max);

export type JsonParse = { ok: true; value: unknown } | { ok: false; message: string };

/**
 * JSON.parse without its message: a failure is described by line and column only (json-error.ts), because the
 * parser's own message quotes the input, which may be a file's secret content.
 */
export function tryParseJson(text: string): JsonParse {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false, message: describeJsonError(text) };
  }
}

const excerpt = (text: string): string => JSON.stringify(text.length > 80 ? `${text.slice(0, 77)}...` : text);

/**
 * A number that overflows to ±Infinity. `text` (a command-line VALUE) is quoted; an input named by `what` (a patch
 * or a file) is only named, never quoted.
 */
export const notRepresentable = (text: string, what?: string): HandoffError =>
  new HandoffError(
    'VALUE_NOT_REPRESENTABLE',
    `a number in ${what ?? excerpt(text)} overflows to Infinity; quote it to keep it as a string`,
  );

export const tooDeep = (what: string): HandoffError =>
  new HandoffError(
    'VALUE_NOT_REPRESENTABLE',
    `${what} nests deeper than ${MAX_JSON_DEPTH} levels, which the handoff store cannot hold; flatten it or store it as a string`,
  );

/**
 * True when a command-line JSON text looks like what a shell leaves of JSON typed without single quotes: a key or a
 * string value whose double quotes were removed (`{a:1}`, `{"a":b}` → `{a:b}`), or a piece of a brace expansion
 * (`{"a":1,"b":2}` unquoted becomes the two words `a:1` and `b:2`).
 */
export function looksShellMangled(text: string): boolean {
  const t = text.trim();
  if (/[{,]\s*[A-Za-z_$][\w$.-]*\s*:/.test(t)) return true;
  if (/:\s*(?!(?:true|false|null)\b)[A-Za-z_$][\w$.-]*\s*[,}\]]/.test(t)) return true;
  return /^[A-Za-z_$][\w$.-]*:/.test(t);
}

export const SHELL_QUOTING_HINT =
  'It looks as if the shell removed quotes: wrap the whole JSON in single quotes (--json \'{"key":"value"}\'), or pass it on stdin with --json-file -.';

/**
 * Parses strict JSON or throws INVALID_JSON / VALUE_NOT_REPRESENTABLE (exit 2). `what` names the input;
 * `fromShell`: the text came as a command-line argument, so a shell-mangled look earns the quoting hint.
 */
export function parseJsonStrict(text: string, what: string, fromShell = false): unknown {
  const r = tryParseJson(text);
  if (!r.ok) {
    const hint = fromShell && looksShellMangled(text) ? SHELL_QUOTING_HINT : undefined;
    throw new HandoffError('INVALID_JSON', `${what} is not valid JSON: ${r.message}`, undefined, hint);
  }
  if (hasNonFinite(r.value)) throw notRepresentable(text, what);
  return r.value;
}

export function jsonTypeOf(value: unknown): string {
  if (value === undefined) return 'absent';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'object' ? 'object' : typeof value;
}
