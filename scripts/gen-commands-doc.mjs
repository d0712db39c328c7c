// Regenerates docs/commands.md from the oclif command classes (a test keeps the committed file in step).
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

const require = createRequire(import.meta.url);
const { commandsDoc } = require('../dist/cli/handoff.cjs');
const out = resolve(import.meta.dirname, '..', 'docs', 'commands.md');
writeFileSync(out, await commandsDoc());
console.log(`wrote ${out}`);
