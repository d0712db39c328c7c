// Regenerates docs/commands.md from the command definitions (a test keeps the committed file in step).
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { renderCommandsDoc } from '../dist/cli/commands-doc.js';

const out = resolve(import.meta.dirname, '..', 'docs', 'commands.md');
writeFileSync(out, await renderCommandsDoc());
console.log(`wrote ${out}`);
