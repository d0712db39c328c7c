/** Renders docs/commands.md from the oclif command classes (through the manifest), so the reference cannot drift from --help. */
import type { Config } from '@oclif/core/config';
import HandoffHelp from './help.js';

export function renderCommandsDoc(config: Config): string {
  const help = new HandoffHelp(config);
  const parts: string[] = [
    '# Command reference',
    '',
    '<!-- Generated from the oclif command classes by `npm run docs:commands`; a test keeps it in step. -->',
    '',
    'Every verb prints the same page with `--help` (or `handoff help TOPIC VERB`). Error codes and the exit-code table:',
    '[errors.md](errors.md). The `--json` result shapes: [schemas.md](schemas.md).',
    '',
  ];
  const ids = [...config.commandIDs].filter((id) => id !== 'help').sort();
  for (const id of ids) {
    const command = config.findCommand(id);
    if (command === undefined) continue;
    parts.push(`## handoff ${id.replaceAll(':', ' ')}`, '', '```text', help.commandPage(command).trimEnd(), '```', '');
  }
  return parts.join('\n');
}
