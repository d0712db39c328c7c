/**
 * schemas/envelope.schema.json, generated from the envelope's declaration (schema.ts) with zod's `toJSONSchema`.
 * Used at build (scripts/gen-envelope-schema.mjs) and by the test that keeps the committed file in step; never on a
 * verb's path.
 *
 * `tidy` only rewrites what zod prints into the plainer equivalent JSON Schema a reader expects: `{}` for "anything"
 * is dropped where it is the default, a nullable `anyOf` becomes a `type` list, nested `anyOf`s are flattened, and keys
 * are put in a readable order. It never changes which documents the schema accepts (the schema tests check that).
 */
import * as z from 'zod/mini';
import { envelopeSchema, jsonSchemaMeta } from './schema.js';

type Node = Record<string, unknown>;

const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Keywords whose value is one schema, a list of schemas, or a map of named schemas. */
const ONE = ['items', 'additionalProperties', 'contains', 'not', 'if', 'then', 'else', 'propertyNames'];
const LIST = ['anyOf', 'allOf', 'oneOf', 'prefixItems'];
const MAP = ['properties', '$defs', 'patternProperties'];
/** Keywords that constrain every type: a schema holding one cannot be merged into a `type` list. */
const ANY_TYPE = ['$ref', 'anyOf', 'allOf', 'oneOf', 'not', 'if', 'then', 'else', 'enum', 'const'];
const ORDER = [
  '$schema',
  '$id',
  'title',
  'description',
  '$ref',
  'type',
  'required',
  'additionalProperties',
  'properties',
];

const typesOf = (n: Node): string[] => (Array.isArray(n.type) ? (n.type as string[]) : [n.type as string]);
const onlyType = (n: Node): boolean => Object.keys(n).length === 1 && n.type !== undefined;
const isNull = (n: Node): boolean => onlyType(n) && n.type === 'null';

/** `anyOf` members: nested bare `anyOf`s spliced in, members that only name types merged into one `type` list. */
function flatAnyOf(members: Node[]): Node[] {
  const flat = members.flatMap((m) =>
    Object.keys(m).length === 1 && Array.isArray(m.anyOf) ? (m.anyOf as Node[]) : [m],
  );
  const types = flat.filter(onlyType).flatMap(typesOf);
  const typeOnly = types.length === 0 ? [] : [{ type: types.length === 1 ? types[0] : [...new Set(types)] }];
  const firstTypeOnly = flat.findIndex(onlyType);
  const rest = flat.filter((m) => !onlyType(m));
  if (firstTypeOnly < 0) return rest;
  return [...rest.slice(0, firstTypeOnly), ...typeOnly, ...rest.slice(firstTypeOnly)];
}

function tidy(node: Node): Node {
  const out: Node = {};
  for (const [key, value] of Object.entries(node)) {
    if (ONE.includes(key) && isNode(value)) out[key] = tidy(value);
    else if (LIST.includes(key) && Array.isArray(value)) out[key] = (value as Node[]).map(tidy);
    else if (MAP.includes(key) && isNode(value))
      out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, tidy(v as Node)]));
    else out[key] = value;
  }
  for (const key of ['items', 'additionalProperties', 'properties']) {
    if (isNode(out[key]) && Object.keys(out[key]).length === 0) delete out[key];
  }
  if (Array.isArray(out.anyOf)) {
    const members = flatAnyOf(out.anyOf as Node[]);
    out.anyOf = members;
    // [X, null] where X is typed and holds only keywords of its own type(s): X's keywords with `type: [..., "null"]`.
    const [x, y] = members;
    const mergeable = (n: Node) =>
      n.type !== undefined &&
      !ANY_TYPE.some((k) => k in n) &&
      Object.keys(n).every((k) => !(k in out) || k === 'anyOf');
    if (members.length === 2 && out.type === undefined) {
      const [typed, other] = isNull(y) ? [x, y] : [y, x];
      if (isNull(other) && mergeable(typed)) {
        delete out.anyOf;
        Object.assign(out, typed, { type: [...typesOf(typed), 'null'] });
      }
    } else if (members.length === 1 && out.type === undefined && mergeable(x)) {
      delete out.anyOf;
      Object.assign(out, x);
    }
  }
  const ordered: Node = {};
  for (const key of ORDER) if (key in out) ordered[key] = out[key];
  for (const [key, value] of Object.entries(out)) if (!(key in ordered)) ordered[key] = value;
  return ordered;
}

/** The published JSON Schema of the envelope (draft 2020-12), as an object. */
export function envelopeJsonSchema(): Node {
  return tidy(z.toJSONSchema(envelopeSchema, { metadata: jsonSchemaMeta, target: 'draft-2020-12' }));
}

/** The text of schemas/envelope.schema.json. */
export const renderEnvelopeSchema = (): string => `${JSON.stringify(envelopeJsonSchema(), null, 2)}\n`;
