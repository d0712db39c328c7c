// Regenerates docs/errors.md from the code registry (src/codes/*). A test keeps the committed file equal to this
// output, so a code without docs (or docs without a code) fails the suite.
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { renderErrorsDoc } from '../dist/codes/doc.js';

const out = resolve(import.meta.dirname, '..', 'docs', 'errors.md');
writeFileSync(out, renderErrorsDoc());
console.log(`wrote ${out}`);
