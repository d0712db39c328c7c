import type { CommandDefinition } from './command.js';
import { COMMANDS } from './registry.js';

export const EXIT_TABLE = `Exit codes:
  0   success, including an idempotent no-op
  1   rejected: a validation failure or a refused state transition
  2   usage error: bad flag, bad id, malformed JSON argument, unusable input file
  3   not found
  4   store or data-root error (also DRAFT_LOCKED, DRAFT_WRITE_FAILED, DRAFT_APPEND_FAILED, RECEIPT_CAPTURE_FAILED)
  70  internal error (a bug); HANDOFF_DEBUG=1 shows the stack
`;

const ENVIRONMENT = `Environment:
  HANDOFF_HOME       data root (drafts, evidence, the store); default $XDG_DATA_HOME/handoff, else ~/.local/share/handoff
  HANDOFF_DB         the SQLite store file (relative paths resolve against the current directory); default <root>/handoff.db
  HANDOFF_WORKSPACE  workspace name when --workspace is not given; default the git top-level's (or the cwd's) folder name
  HANDOFF_MAX_ENVELOPE_BYTES  the largest envelope a write may store (compact JSON); default 1048576 (1 MiB)
  HANDOFF_DEBUG=1    print the stack of an internal error (exit 70)
`;

function commandLines(ids: string[]): string {
  const width = Math.max(...ids.map((c) => c.length));
  return ids.map((id) => `  handoff ${id.padEnd(width)}  ${COMMANDS[id].summary}`).join('\n');
}

export function renderTopLevelHelp(): string {
  return `handoff: machine-checkable handoffs for AI agents\n\nCommands:\n${commandLines(Object.keys(COMMANDS))}\n\nRun handoff <topic> <verb> --help for a verb's flags.\n\n${ENVIRONMENT}\n${EXIT_TABLE}`;
}

export function renderTopicHelp(topic: string, ids: string[]): string {
  return `handoff ${topic}\n\nCommands:\n${commandLines(ids)}\n\nRun handoff ${topic} <verb> --help for a verb's flags.\n`;
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
