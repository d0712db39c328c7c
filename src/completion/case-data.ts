/**
 * The command table as shell functions of `case` statements, the same text in bash and zsh. Each sets the array
 * `hreply` (its first element says what it holds) and, with descriptions on (zsh), `hdesc`, one display line per
 * word:
 *   _handoff_words ''|TOPIC   values W...: the first words, or the topic's verbs
 *   _handoff_topic WORD       status 0 when WORD is a topic
 *   _handoff_flags ID         values --F...: the verb's flags, or nothing when ID is no verb
 *   _handoff_value ID --F     none | any | file | dir | values V...: what follows the flag
 *   _handoff_arg ID N         the same for positional argument N (0-based); help's: first | verbs
 */
import type { CompletionModel, CompletionWord, ValueKind } from './model.js';

/** `text` as one single-quoted word of bash or zsh. */
const sq = (text: string): string => `'${text.replaceAll("'", "'\\''")}'`;

const words = (list: readonly string[]): string => list.map(sq).join(' ');

function valueReply(v: ValueKind): string {
  return v.kind === 'values' ? `hreply=(values ${words(v.values)})` : `hreply=(${v.kind})`;
}

/** `hreply=(values ...)`, and `hdesc` aligned (`word  -- description`) when `withDesc`. */
function listReply(list: readonly CompletionWord[], withDesc: boolean): string {
  const reply = `hreply=(values ${words(list.map((w) => w.word))})`;
  if (!withDesc) return reply;
  const width = Math.max(...list.map((w) => w.word.length));
  const desc = list.map((w) => (w.description === '' ? w.word : `${w.word.padEnd(width)}  -- ${w.description}`));
  return `${reply}; hdesc=(${words(desc)})`;
}

/** The branches of one nested `case` on a flag or an argument index, grouped by reply. */
function branches(entries: [string, ValueKind][], indent: string): string[] {
  const groups = new Map<string, string[]>();
  for (const [pattern, v] of entries) {
    const reply = valueReply(v);
    if (reply === 'hreply=(any)') continue;
    groups.set(reply, [...(groups.get(reply) ?? []), pattern]);
  }
  return [...groups].map(([reply, patterns]) => `${indent}${patterns.map(sq).join('|')}) ${reply} ;;`);
}

export function caseData(model: CompletionModel, withDesc: boolean): string {
  const clear = withDesc ? 'hdesc=(); ' : '';
  const lines: string[] = [];
  lines.push('_handoff_words() {', `  ${clear}case $1 in`);
  lines.push(`    '') ${listReply(model.first, withDesc)} ;;`);
  for (const [topic, verbs] of Object.entries(model.verbs))
    lines.push(`    ${sq(topic)}) ${listReply(verbs, withDesc)} ;;`);
  lines.push('    *) hreply=(none) ;;', '  esac', '}', '');

  const topics = Object.keys(model.verbs);
  lines.push(
    '_handoff_topic() {',
    '  case $1 in',
    `    ${topics.map(sq).join('|')}) return 0 ;;`,
    '  esac',
    '  return 1',
    '}',
    '',
  );

  lines.push('_handoff_flags() {', `  ${clear}case $1 in`);
  for (const c of model.commands) {
    const flags = c.flags.map((f) => ({ word: f.long, description: f.description }));
    lines.push(`    ${sq(c.id)}) ${listReply(flags, withDesc)} ;;`);
  }
  lines.push('    *) hreply=() ;;', '  esac', '}', '');

  lines.push('_handoff_value() {', '  hreply=(any)', '  case $1 in');
  for (const c of model.commands) {
    const entries = c.flags.flatMap((f): [string, ValueKind][] => [
      [f.long, f.value],
      ...(f.short === undefined ? [] : [[f.short, f.value] as [string, ValueKind]]),
    ]);
    const inner = branches(entries, '        ');
    if (inner.length > 0) lines.push(`    ${sq(c.id)})`, '      case $2 in', ...inner, '      esac ;;');
  }
  lines.push('  esac', '}', '');

  lines.push('_handoff_arg() {', '  hreply=(any)', '  case $1 in');
  for (const c of model.commands) {
    const inner = branches(
      c.args.map((v, i): [string, ValueKind] => [String(i), v]),
      '        ',
    );
    if (inner.length > 0) lines.push(`    ${sq(c.id)})`, '      case $2 in', ...inner, '      esac ;;');
  }
  lines.push('  esac', '}');
  return lines.join('\n');
}
