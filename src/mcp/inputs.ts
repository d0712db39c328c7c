/**
 * The tools' input schemas: zod/mini objects (strict: an unknown parameter is refused, never ignored), the JSON
 * Schema `tools/list` publishes (zod's own `toJSONSchema`, with descriptions and the envelope fragment from a
 * metadata registry of ours), and the check of a call's arguments, whose failure is USAGE (exit 2 on the command
 * line) with one readable line. Only the tools' own parameters are checked here: envelope content (`value`,
 * `patch`, `envelope`) is judged by the verbs, with their codes.
 */
import * as z from 'zod/mini';
import { HandoffError, usage } from '../errors.js';
import { exceedsDepth, hasNonFinite, jsonTypeOf, tooDeep } from '../json.js';
import { closest, didYouMean } from '../cli/suggest.js';

/** Extra JSON Schema keywords for one parameter (merged into zod's output by `toJSONSchema`). */
export type ParamMeta = Record<string, unknown> & { description?: string };

export const paramMeta = z.registry<ParamMeta>();

/** Registers `meta` for `schema` (a description, or the keywords zod cannot print, such as a fragment's properties). */
export function described<T extends z.ZodMiniType>(schema: T, meta: string | ParamMeta): T {
  paramMeta.add(schema, typeof meta === 'string' ? { description: meta } : meta);
  return schema;
}

export type ToolInput = z.ZodMiniObject;
export type Args = Record<string, unknown>;

/** zod's JSON Schema generator, imported by the server from outside the bundle (see server.ts). */
export type ToJsonSchema = typeof import('zod/v4/core').toJSONSchema;

/** The published input schema of a tool (JSON Schema 2020-12); `defs` are carried for `$ref`s from the metadata. */
export function inputJsonSchema(
  toJSONSchema: ToJsonSchema,
  input: ToolInput,
  defs?: Record<string, unknown>,
): Record<string, unknown> {
  const schema = toJSONSchema(input, { metadata: paramMeta, target: 'draft-2020-12', io: 'input' }) as Record<
    string,
    unknown
  >;
  delete schema.$schema;
  return defs === undefined ? schema : { ...schema, $defs: defs };
}

/**
 * The arguments of a call, checked against the tool's input. Returns them as sent (zod's output would copy objects,
 * reordering keys and dropping an own `__proto__` key), or throws USAGE naming every problem.
 */
export function checkArgs(input: ToolInput, args: Args): Args {
  const result = input.safeParse(args);
  if (result.success) return args;
  const params = Object.keys(input._zod.def.shape);
  const problems = result.error.issues.map((issue) => describeIssue(issue, args, params));
  throw usage(`invalid arguments: ${problems.join('; ')}`);
}

function describeIssue(issue: z.core.$ZodIssue, args: Args, params: string[]): string {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((k) => `unknown parameter ${JSON.stringify(k)}${didYouMean(closest(k, params))}`).join('; ');
  }
  const path = issue.path.map(String).join('.');
  const value = issue.path.reduce<unknown>(
    (v, key) => (typeof v === 'object' && v !== null ? (v as Args)[key as string] : undefined),
    args,
  );
  const name = path === '' ? 'the arguments' : path;
  if (issue.code === 'invalid_type') {
    if (value === undefined) return `${name} is required`;
    return `${name} must be ${article(issue.expected)}, got ${jsonTypeOf(value)}`;
  }
  if (issue.code === 'too_small')
    return `${name} must be at least ${String(issue.minimum)}${issue.origin === 'array' ? ' element(s)' : ''}`;
  if (issue.code === 'too_big') return `${name} must be at most ${String(issue.maximum)}`;
  if (issue.code === 'invalid_value')
    return `${name} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
  return `${name} is not valid (got ${jsonTypeOf(value)})`;
}

const article = (expected: string): string =>
  expected === 'int' ? 'an integer' : /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;

/** CLI arguments for the tool's parameters: `snake_case` becomes `--kebab-case`; true is a bare switch, false absent. */
export function toArgv(args: Args, names: readonly string[] = Object.keys(args)): string[] {
  const argv: string[] = [];
  for (const name of names) {
    const value = args[name];
    if (value === undefined || value === false) continue;
    const flag = `--${name.replaceAll('_', '-')}`;
    // `--flag=value`: a value that starts with `-` is never read as another flag.
    argv.push(value === true ? flag : `${flag}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  }
  return argv;
}

/**
 * A JSON value that arrived typed must still be one the store can hold, as a parsed VALUE must: nested at most
 * MAX_JSON_DEPTH levels, and no number that overflowed to Infinity when the JSON-RPC message was parsed (`1e400`).
 * VALUE_NOT_REPRESENTABLE, exit 2.
 */
export function checkTypedJson(value: unknown, what: string): void {
  if (exceedsDepth(value)) throw tooDeep(what);
  if (hasNonFinite(value)) {
    throw new HandoffError(
      'VALUE_NOT_REPRESENTABLE',
      `${what} holds a number that overflows to Infinity; send it as a string to keep its digits`,
    );
  }
}
