/** Renders docs/commands.md from the command definitions themselves, so the reference cannot drift from --help. */
import { renderHelp } from './help.js';
import { COMMANDS, loadCommand } from './registry.js';

export async function renderCommandsDoc(): Promise<string> {
  const parts: string[] = [
    '# Command reference',
    '',
    '<!-- Generated from the command definitions by `npm run docs:commands`; a test keeps it in step. -->',
    '',
    'Every verb prints the same text with `--help`. Error codes and the exit-code table: [errors.md](errors.md).',
    '',
  ];
  for (const id of Object.keys(COMMANDS)) {
    const def = await loadCommand(id);
    parts.push(`## handoff ${id}`, '', '```text', renderHelp(def).trimEnd(), '```', '');
  }
  return parts.join('\n');
}
