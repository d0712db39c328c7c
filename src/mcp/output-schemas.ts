/**
 * Each tool's `outputSchema`: shallow, the top-level keys of the published result schemas (schemas/results/) its
 * `structuredContent` follows, and each key's JSON types. Every MCP client carries every tool's schema in its
 * context, so the full schemas (17-26 KB a tool bundled, 336 KB in all) stay in the published files the description
 * names, where a client that wants them loads them; `tools/list` stays under 64 KB. The tests validate real results
 * against both forms.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

type Node = Record<string, unknown>;

const RESULTS_DIR = fileURLToPath(new URL('../../schemas/results/', import.meta.url));
const SUFFIX = '.schema.json';

const cache = new Map<string, Node>();
function load(name: string): Node {
  let doc = cache.get(name);
  if (doc === undefined) {
    doc = JSON.parse(readFileSync(`${RESULTS_DIR}${name}${SUFFIX}`, 'utf8')) as Node;
    cache.set(name, doc);
  }
  return doc;
}

const jsonType = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v;

/** The node a `$ref` names (`file.schema.json#/$defs/x` or `#/$defs/x` within `file`), with the file it is in. */
function resolve(ref: string, file: string): [Node, string] | undefined {
  const hash = ref.indexOf('#');
  const target = hash === 0 ? file : (hash === -1 ? ref : ref.slice(0, hash)).replace(SUFFIX, '');
  let node: unknown = load(target);
  for (const part of hash === -1
    ? []
    : ref
        .slice(hash + 2)
        .split('/')
        .filter(Boolean)) {
    node = (node as Node | undefined)?.[part];
  }
  return typeof node === 'object' && node !== null ? [node as Node, target] : undefined;
}

/** The JSON types a value of `node` can have, or undefined when the schema does not say (any type). */
function typesOf(node: unknown, file: string, depth = 0): Set<string> | undefined {
  // A boolean schema (`true`) or anything unexpected says nothing about the type.
  if (depth > 6 || typeof node !== 'object' || node === null || Array.isArray(node)) return undefined;
  return typesOfNode(node as Node, file, depth);
}

function typesOfNode(node: Node, file: string, depth: number): Set<string> | undefined {
  if (typeof node.type === 'string') return new Set([node.type]);
  if (Array.isArray(node.type)) return new Set(node.type as string[]);
  if ('const' in node) return new Set([jsonType(node.const)]);
  if (Array.isArray(node.enum)) return new Set(node.enum.map(jsonType));
  if (typeof node.$ref === 'string') {
    const target = resolve(node.$ref, file);
    return target === undefined ? undefined : typesOf(target[0], target[1], depth + 1);
  }
  const branches = (node.oneOf ?? node.anyOf) as Node[] | undefined;
  if (!Array.isArray(branches)) return undefined;
  const out = new Set<string>();
  for (const b of branches) {
    const t = typesOf(b, file, depth + 1);
    if (t === undefined) return undefined;
    for (const x of t) out.add(x);
  }
  return out;
}

/** Top-level properties of a schema: its own and those of its root-level combinators. */
function* topProperties(node: unknown): Generator<[string, unknown]> {
  if (typeof node !== 'object' || node === null) return;
  if (typeof (node as Node).properties === 'object' && (node as Node).properties !== null)
    yield* Object.entries((node as Node).properties as Record<string, unknown>);
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    const branches = (node as Node)[key];
    if (Array.isArray(branches)) for (const b of branches) yield* topProperties(b);
  }
}

/** The shallow schema of a tool whose results take the shapes of `names` (file names without `.schema.json`). */
export function outputSchema(names: readonly string[]): Node {
  const keys = new Map<string, Set<string> | undefined>();
  for (const name of names) {
    for (const [key, prop] of topProperties(load(name))) {
      const had = keys.has(key);
      const before = keys.get(key);
      const t = typesOf(prop, name);
      if (had && before === undefined) continue; // already any type
      if (t === undefined) keys.set(key, undefined);
      else keys.set(key, new Set([...(before ?? []), ...t]));
    }
  }
  const properties: Node = {};
  for (const [key, types] of [...keys].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (types === undefined) {
      properties[key] = {};
      continue;
    }
    if (types.has('number')) types.delete('integer');
    const list = [...types].sort();
    properties[key] = { type: list.length === 1 ? list[0] : list };
  }
  return {
    type: 'object',
    description: `The verb's --json result, one of ${names.map((n) => `${n}${SUFFIX}`).join(', ')} (published in schemas/results/, the full shapes); here its top-level keys and their types.`,
    properties,
  };
}
