// Regenerates, from the code registry (src/codes/*), docs/errors.md and the code enum of the published result
// schemas (schemas/results/defs.schema.json, $defs.code.enum). Tests keep both equal to the registry, so a code
// without docs or without a schema entry fails the suite. It also writes the harness lists of defs.schema.json
// ($defs.harness and its three subsets) from the adapters' registry (src/harnesses/index.ts), the one list of
// harnesses: every result schema naming a harness refers to them.
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { renderErrorsDoc } from '../dist/codes/doc.js';
import { ALL_CODES } from '../dist/codes/index.js';
import { adapterOf, HARNESSES, PRE_TOOL_HARNESSES } from '../dist/harnesses/index.js';

const root = resolve(import.meta.dirname, '..');
const doc = resolve(root, 'docs', 'errors.md');
writeFileSync(doc, renderErrorsDoc());
console.log(`wrote ${doc}`);

// The enum is rewritten in place, wrapped like the rest of the file (five codes a line), so the diff shows the codes.
const defs = resolve(root, 'schemas', 'results', 'defs.schema.json');
const text = readFileSync(defs, 'utf8');
const codes = [...new Set(ALL_CODES.map((c) => c.code))].sort();
const lines = [];
for (let i = 0; i < codes.length; i += 5)
  lines.push(
    `        ${codes
      .slice(i, i + 5)
      .map((c) => JSON.stringify(c))
      .join(', ')}`,
  );
const re = /("code": \{\n\s+"description": [^\n]*\n\s+"enum": \[\n)[^\]]*(\n\s+\])/;
if (!re.test(text)) throw new Error(`gen-errors-doc: no $defs.code.enum found in ${defs}`);
let out = text.replace(re, (_m, head, tail) => `${head}${lines.join(',\n')}${tail}`);

// The harness lists, one line each; a stop hook blocks by exit 2 or answers JSON on exit 0 (its adapter says which).
const exitTwo = HARNESSES.filter((h) => adapterOf(h).answer(true, 'r', undefined).exit === 2);
const lists = {
  harness: HARNESSES,
  preToolHarness: PRE_TOOL_HARNESSES,
  exitTwoHarness: exitTwo,
  jsonAnswerHarness: HARNESSES.filter((h) => !exitTwo.includes(h)),
};
for (const [name, list] of Object.entries(lists)) {
  const at = new RegExp(`("${name}": \\{\\n\\s+"description": [^\\n]*\\n\\s+"enum": )\\[[^\\]]*\\]`);
  if (!at.test(out)) throw new Error(`gen-errors-doc: no $defs.${name}.enum found in ${defs}`);
  out = out.replace(at, (_m, head) => `${head}${JSON.stringify(list).replaceAll(',', ', ')}`);
}
writeFileSync(defs, out);
console.log(`wrote ${defs} ($defs.code.enum, ${codes.length} codes; $defs.harness, ${HARNESSES.length} harnesses)`);
