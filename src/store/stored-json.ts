/**
 * The JSON columns of stored rows, read back through zod/mini schemas: each column's shape is
 * declared here once, and `readStoredJson` gives the parsed value, or undefined when the text is not JSON or does not
 * fit, so that every caller keeps its own fallback and a damaged column never crashes a verb.
 *
 * Start-up: a column's schema is built on its first read, once per process (most calls of the hot verbs read no row),
 * and only `zod/mini` is used.
 */
import * as z from 'zod/mini';

/** A column: its schema, built on first use. */
export type StoredColumn<S extends z.ZodMiniType> = () => S;
function column<S extends z.ZodMiniType>(make: () => S): StoredColumn<S> {
  let schema: S | undefined;
  return () => (schema ??= make());
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A stored list of strings (`can_write_json`, `gate_rejections.last_codes_json`): a JSON array whose non-string
 * elements are dropped, so one damaged element does not void the rest.
 */
export const stringListColumn = column(() =>
  z.pipe(
    z.array(z.unknown()),
    z.transform((list: unknown[]) => list.filter(isString)),
  ),
);

/** `acceptance_json`: the dispatch's acceptance criteria, brief criteria first. */
export const acceptanceColumn = column(() =>
  z.array(z.object({ ac_id: z.nullable(z.string()), description: z.string() })),
);

/** `receipts.argv_json`: the command as run. */
export const argvColumn = column(() => z.array(z.string()));

/**
 * `raw_handoff_json` where a caller needs an object: checked, never rebuilt. The envelope's content is the validator's
 * to judge, and a rebuilt copy would lose an own `__proto__` key that JSON.parse keeps.
 */
export const envelopeColumn = column(() => z.custom<Record<string, unknown>>(isPlainObject));

/** `raw_handoff_json` handed to the validator as it is: any JSON value (a non-object is the validator's MISSING_FIELD). */
export const jsonColumn = column(() => z.unknown());

/**
 * A JSON object whose values are all strings, checked in one loop: a base holds one entry per test file (thousands),
 * which a zod record would check and copy entry by entry on every finalize.
 */
const isStringMap = (v: unknown): v is Record<string, string> => {
  if (!isPlainObject(v)) return false;
  for (const k in v) if (typeof v[k] !== 'string') return false;
  return true;
};

/** `test_base_json`: the test base dispatch took (migration 0008). */
export const testBaseColumn = column(() =>
  z.object({
    workdir: z.string(),
    git_head: z.nullable(z.string()),
    tree_fingerprint: z.nullable(z.string()),
    globs: z.array(z.string()),
    protect: z.boolean(),
    files: z.nullable(z.custom<Record<string, string>>(isStringMap)),
    stat: z.optional(z.custom<Record<string, string>>(isStringMap)),
  }),
);

/** `test_changes_json`: finalize's detection beside the declarations (migration 0008). */
export const testChangesColumn = column(() =>
  z.object({
    detected: z.union([
      z.literal('unknown'),
      z.array(
        z.object({
          path: z.string(),
          change: z.enum(['added', 'modified', 'deleted']),
          old_sha256: z.nullable(z.string()),
          new_sha256: z.nullable(z.string()),
        }),
      ),
    ]),
    declared: z.nullable(z.array(z.object({ path: z.string(), reason: z.string() }))),
  }),
);

/** The column's value through its schema; undefined for NULL, text that is not JSON, or a value that does not fit. */
export function readStoredJson<S extends z.ZodMiniType>(
  text: string | null | undefined,
  col: StoredColumn<S>,
): z.output<S> | undefined {
  if (text === null || text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  // jitless: a process parses a column once or twice, so compiling a fast path (new Function) would cost more.
  const parsed = col().safeParse(value, { jitless: true });
  return parsed.success ? parsed.data : undefined;
}
