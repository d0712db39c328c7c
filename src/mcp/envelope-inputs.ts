/**
 * What the MCP tools' input schemas take from the envelope's declaration (src/envelope/schema.ts), read from the JSON
 * Schema generated from it at build (schemas/envelope.schema.json, kept in step by a test; zod's JSON Schema
 * generator is not part of the CLI bundle): the dotted paths an agent writes with their declared types (`contract_set` and
 * `contract_add` describe `field` with them), and the schema of an envelope fragment (`patch` of `contract_fill`
 * and `contract_patch`). These describe inputs to the agent; the verbs' own validation judges them, with its codes.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { AGENT_WRITABLE_ROOT_KEYS, EVIDENCE_LISTS_UPPER } from '../envelope/vocabulary.js';

type Node = Record<string, unknown>;

/** The closed levels a fill or a merge patch walks into (their keys merge; every other value is replaced whole). */
const MERGE_LEVELS: Readonly<Record<string, string>> = {
  agent_status: 'agentStatus',
  evidence_report: 'evidenceReport',
};

interface Declared {
  /** The published schema's `$defs`, which the fragment's references point into. */
  defs: Record<string, Node>;
  root: Record<string, Node>;
}

export const ENVELOPE_SCHEMA_FILE = fileURLToPath(new URL('../../schemas/envelope.schema.json', import.meta.url));

function declared(): Declared {
  const schema = JSON.parse(readFileSync(ENVELOPE_SCHEMA_FILE, 'utf8')) as Node;
  return { defs: schema.$defs as Record<string, Node>, root: schema.properties as Record<string, Node> };
}

/** The schema a `$ref` names, or the node itself. */
const deref = (node: Node, defs: Record<string, Node>): Node =>
  typeof node.$ref === 'string' ? defs[node.$ref.replace('#/$defs/', '')] : node;

const typeText = (node: Node): string => {
  if (node.type === undefined) return 'any';
  return (Array.isArray(node.type) ? (node.type as string[]) : [node.type as string]).join(' or ');
};

/** `agent_status.next_action (string)`, ... in declaration order; upper-case list spellings are left out. */
export function declaredFieldPaths(): string[] {
  const { defs, root } = declared();
  const out: string[] = [];
  for (const key of AGENT_WRITABLE_ROOT_KEYS) {
    const node = deref(root[key], defs);
    if (MERGE_LEVELS[key] === undefined) {
      out.push(`${key} (${typeText(node)})`);
      continue;
    }
    for (const [child, schema] of Object.entries(node.properties as Record<string, Node>)) {
      if (!EVIDENCE_LISTS_UPPER.includes(child)) out.push(`${key}.${child} (${typeText(deref(schema, defs))})`);
    }
  }
  return out;
}

/** A property that may also be null (fill stores null; a merge patch removes the key). */
function nullable(node: Node): Node {
  if (node.type === undefined) return node.$ref === undefined ? node : { anyOf: [node, { type: 'null' }] };
  const types = Array.isArray(node.type) ? (node.type as string[]) : [node.type as string];
  return types.includes('null') ? node : { ...node, type: [...types, 'null'] };
}

/** A merge level as a fragment: every key optional and nullable, any key allowed (the validator names unknown ones). */
function partial(node: Node): Node {
  const properties = Object.fromEntries(
    Object.entries(node.properties as Record<string, Node>).map(([k, v]) => [k, nullable(v)]),
  );
  const out: Node = { type: 'object', properties };
  if (typeof node.description === 'string') out.description = node.description;
  return out;
}

/**
 * The JSON Schema of a `patch`: the keys an agent writes at the root, agent_status and evidence_report, none
 * required, each value as declared or null. References point into `defs`, which the tool's input schema carries.
 */
export function envelopeFragmentSchema(): { schema: Node; defs: Record<string, Node> } {
  const { defs, root } = declared();
  const properties: Record<string, Node> = {};
  for (const key of AGENT_WRITABLE_ROOT_KEYS) {
    const level = MERGE_LEVELS[key];
    properties[key] = level === undefined ? nullable(root[key]) : nullable(partial(defs[level]));
  }
  const used = Object.fromEntries(Object.entries(defs).filter(([name]) => !Object.values(MERGE_LEVELS).includes(name)));
  return { schema: { type: 'object', properties }, defs: used };
}
