/**
 * Each tool's `outputSchema`: the published result schemas (schemas/results/) its `structuredContent` follows, as one
 * self-contained JSON Schema. A client loads it alone (the SDK's client compiles it with its own validator), so the
 * files it references are embedded under `$defs`, named by file (`defs.schema.json#/$defs/code` becomes
 * `#/$defs/defs/$defs/code`), without their `$schema` and `$id`. The root is an object (as MCP requires) that is
 * any one of the tool's result shapes, its refusals and errors included.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

type Node = Record<string, unknown>;

const RESULTS_DIR = fileURLToPath(new URL('../../schemas/results/', import.meta.url));
const SUFFIX = '.schema.json';

const load = (name: string): Node => JSON.parse(readFileSync(`${RESULTS_DIR}${name}${SUFFIX}`, 'utf8')) as Node;

/** `$ref`s of one file rewritten to point into the bundle; the files they name are queued. */
function rewrite(node: unknown, file: string, queue: string[]): unknown {
  if (Array.isArray(node)) return node.map((n) => rewrite(n, file, queue));
  if (typeof node !== 'object' || node === null) return node;
  const out: Node = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string') {
      const hash = value.indexOf('#');
      const target = hash === 0 ? file : (hash === -1 ? value : value.slice(0, hash)).replace(SUFFIX, '');
      if (target !== file) queue.push(target);
      out[key] = `#/$defs/${target}${hash === -1 ? '' : value.slice(hash + 1)}`;
    } else out[key] = rewrite(value, file, queue);
  }
  return out;
}

/** The bundled schema of a tool whose results take the shapes of `names` (file names without `.schema.json`). */
export function outputSchema(names: readonly string[]): Node {
  const defs: Node = {};
  const queue = [...names];
  for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
    if (name in defs) continue;
    const { $schema: _schema, $id: _id, ...doc } = load(name);
    defs[name] = rewrite(doc, name, queue);
  }
  return {
    type: 'object',
    description: `The tool's result object (its verb's --json output): one of ${names.map((n) => `${n}${SUFFIX}`).join(', ')} in schemas/results/.`,
    anyOf: names.map((n) => ({ $ref: `#/$defs/${n}` })),
    $defs: defs,
  };
}
