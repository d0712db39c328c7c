import type { CommandDefinition } from './command.js';
import { COMMANDS } from './registry.js';

export const EXIT_TABLE = `Exit codes:
  0   success, including an idempotent no-op
  1   rejected: a validation failure or a refused state transition
  2   usage error: bad flag, bad id, malformed JSON argument, unusable input file
  3   not found
  4   store error (and DRAFT_LOCKED, DRAFT_WRITE_FAILED)
  70  internal error (a bug); HANDOFF_DEBUG=1 shows the stack
`;

export function renderTopLevelHelp(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  const lines = Object.entries(COMMANDS).map(([id, c]) => `  handoff ${id.padEnd(width)}  ${c.summary}`);
  return `handoff: machine-checkable handoffs for AI agents\n\nCommands:\n${lines.join('\n')}\n\nRun handoff <topic> <verb> --help for a verb's flags.\n\n${EXIT_TABLE}`;
}

export function renderHelp(def: CommandDefinition): string {
  const flagLines = Object.entries(def.flags).map(([name, f]) => {
    const left = `--${name}${f.type === 'string' ? ` ${f.valueName ?? 'VALUE'}` : ''}${f.multiple ? ' ...' : ''}`;
    return `  ${left.padEnd(28)} ${f.description}`;
  });
  const argLines = (def.args ?? []).map((a) => `  ${a.name.padEnd(28)} ${a.description}`);
  const sections = [`${def.summary}\n\nUsage: ${def.usage}`];
  if (def.description) sections.push(def.description);
  if (argLines.length) sections.push(`Arguments:\n${argLines.join('\n')}`);
  if (flagLines.length) sections.push(`Flags:\n${flagLines.join('\n')}`);
  sections.push(
    def.failOpen
      ? 'Exit codes (hook protocol): 0 allow, 2 block (reason on stderr), 1 cannot decide (stop not gated), 70 internal error.'
      : EXIT_TABLE.trimEnd(),
  );
  return `${sections.join('\n\n')}\n`;
}
