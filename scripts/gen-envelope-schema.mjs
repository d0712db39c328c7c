// Regenerates schemas/envelope.schema.json from the envelope's zod declaration (src/envelope/schema.ts, read through
// dist/ after tsc). `npm run build` runs it; a test keeps the committed file equal to this output, so a declaration
// change that was not rebuilt (or a hand edit of the file) fails the suite.
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { renderEnvelopeSchema } from '../dist/envelope/json-schema.js';

const out = resolve(import.meta.dirname, '..', 'schemas', 'envelope.schema.json');
const text = renderEnvelopeSchema();
let before;
try {
  before = readFileSync(out, 'utf8');
} catch {
  before = undefined;
}
if (before !== text) {
  writeFileSync(out, text);
  console.log(`wrote ${out} (generated from src/envelope/schema.ts)`);
}
