/**
 * What a completion script knows, read from the command table (oclif's manifest, as the CLI's Config holds it):
 * the topics, the verbs, each verb's flags with what their values are (fixed values, a file, a folder, anything),
 * and its arguments. Plain data: each shell's script is rendered from it (bash.ts, zsh.ts, fish.ts).
 */
import { KNOWN_VALUES, PATH_PLACEHOLDERS } from './known-values.js';

/** A flag or argument as the manifest describes it (the fields read here). */
interface ManifestOption {
  name: string;
  type?: 'boolean' | 'option';
  char?: string;
  description?: string;
  summary?: string;
  helpValue?: string | string[];
  options?: readonly string[];
  multiple?: boolean;
  hidden?: boolean;
}

/** A command as the manifest describes it. */
interface ManifestCommand {
  id: string;
  summary?: string;
  description?: string;
  hidden?: boolean;
  flags: Record<string, ManifestOption>;
  args: Record<string, ManifestOption>;
}

interface ManifestTopic {
  name: string;
  description?: string;
  hidden?: boolean;
}

/**
 * What follows a flag or fills an argument: nothing (a switch), one of fixed values, a path, free text; for `help`'s
 * arguments, a first word (a topic or a verb without one) and then a verb of that topic.
 */
export type ValueKind =
  | { kind: 'none' }
  | { kind: 'values'; values: readonly string[] }
  | { kind: 'file' }
  | { kind: 'dir' }
  | { kind: 'any' }
  | { kind: 'first' }
  | { kind: 'verbs' };

interface CompletionFlag {
  /** `--name`. */
  long: string;
  /** `-c`, when the flag has a short form. */
  short?: string;
  value: ValueKind;
  description: string;
}

export interface CompletionCommand {
  /** `contract:set`, `mcp`. */
  id: string;
  /** The words that name it: `['contract', 'set']`, `['mcp']`. */
  words: string[];
  summary: string;
  flags: CompletionFlag[];
  /** The positional arguments in order. */
  args: ValueKind[];
}

export interface CompletionWord {
  word: string;
  description: string;
}

export interface CompletionModel {
  bin: string;
  /** What the first word may be: the topics and the verbs without a topic. */
  first: CompletionWord[];
  /** Each topic's verbs. */
  verbs: Record<string, CompletionWord[]>;
  commands: CompletionCommand[];
}

/** One line for a listing: the first sentence, at most 80 characters. */
function shortText(text: string | undefined): string {
  const line = (text ?? '')
    .split('\n')[0]
    .split(/(?<=\.) /)[0]
    .trim();
  return line.length <= 80 ? line.replace(/\.$/, '') : `${line.slice(0, 77).trimEnd()}...`;
}

function valueOf(commandId: string, name: string, f: ManifestOption, isArg: boolean): ValueKind {
  if (!isArg && f.type === 'boolean') return { kind: 'none' };
  const values = f.options ?? (isArg ? undefined : KNOWN_VALUES[`${commandId} --${name}`]);
  if (values !== undefined && values.length > 0) return { kind: 'values', values };
  // `PATH|-`: a file, or `-` for stdin.
  const placeholder = isArg ? name : typeof f.helpValue === 'string' ? f.helpValue.split('|')[0] : undefined;
  const path = placeholder === undefined ? undefined : PATH_PLACEHOLDERS[placeholder];
  return path === undefined ? { kind: 'any' } : { kind: path };
}

/** `help`: oclif adds `--help` to every verb outside the manifest's flags. */
const HELP_FLAG: CompletionFlag = { long: '--help', value: { kind: 'none' }, description: "Show this verb's help" };

/** `handoff help TOPIC VERB` names a verb as the command line does. */
const HELP_ARGS: ValueKind[] = [{ kind: 'first' }, { kind: 'verbs' }];

export function completionModel(
  bin: string,
  commands: Iterable<ManifestCommand>,
  topics: Iterable<ManifestTopic>,
): CompletionModel {
  const visible = [...commands]
    .filter((c) => c.hidden !== true)
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  // oclif's topics also name each verb without a topic; a topic here is a first word that verbs follow.
  const withVerbs = new Set(visible.filter((c) => c.id.includes(':')).map((c) => c.id.split(':')[0]));
  const topicNames = new Set<string>();
  const first: CompletionWord[] = [];
  for (const t of topics) {
    if (t.hidden === true || !withVerbs.has(t.name) || topicNames.has(t.name)) continue;
    topicNames.add(t.name);
    first.push({ word: t.name, description: shortText(t.description) });
  }
  for (const name of withVerbs) {
    if (!topicNames.has(name)) first.push({ word: name, description: '' });
    topicNames.add(name);
  }
  const verbs: Record<string, CompletionWord[]> = {};
  const out: CompletionCommand[] = [];
  for (const c of visible) {
    const words = c.id.split(':');
    const summary = shortText(c.summary ?? c.description);
    if (words.length === 1) first.push({ word: words[0], description: summary });
    else if (topicNames.has(words[0])) (verbs[words[0]] ??= []).push({ word: words[1], description: summary });
    else continue;
    const flags = Object.entries(c.flags)
      .filter(([, f]) => f.hidden !== true)
      .map(([name, f]) => ({
        long: `--${name}`,
        ...(f.char === undefined ? {} : { short: `-${f.char}` }),
        value: valueOf(c.id, name, f, false),
        description: shortText(f.summary ?? f.description),
      }));
    const args: ValueKind[] =
      c.id === 'help' ? HELP_ARGS : Object.entries(c.args).map(([name, a]) => valueOf(c.id, name, a, true));
    out.push({ id: c.id, words, summary, flags: [...flags, HELP_FLAG], args });
  }
  first.sort((a, b) => (a.word < b.word ? -1 : a.word > b.word ? 1 : 0));
  return { bin, first, verbs, commands: out };
}
