/** Help and unknown-command answers, shared by the entry point and the `help` verb. */
import type { Config } from '@oclif/core/config';
import { usage, type HandoffError } from '../errors.js';
import type { ExecuteIO } from './io.js';
import { closest } from './suggest.js';

/** Shows oclif's help for `words` (none: root help; a topic; a topic and verb). Unknown words are USAGE, exit 2. */
export async function showHelp(config: Config, words: string[], io: Pick<ExecuteIO, 'stdout'>): Promise<void> {
  const id = words.join(':');
  if (words.length > 0 && config.findCommand(id) === undefined && config.findTopic(id) === undefined) {
    throw unknownCommand(config, words);
  }
  const { default: HandoffHelp } = await import('./help.js');
  // Every line goes through the verb's stdout (for the process: fs.writeSync, a reader that stops early is no error).
  await new HandoffHelp(config).printTo(io.stdout).showHelp(words);
}

/** The usage error for command words that name no command, with the nearest command or topic when one is close. */
export function unknownCommand(config: Config, words: string[]): HandoffError {
  const ids = config.commandIDs.map((c) => c.replaceAll(':', ' '));
  const topics = [...new Set(ids.filter((c) => c.includes(' ')).map((c) => c.split(' ')[0]))];
  const topLevel = ids.filter((c) => !c.includes(' ') && c !== 'help');
  const [topic, verb] = words;
  if (topic === undefined) return usage('no command given; run handoff help');
  if (verb === undefined && topics.includes(topic)) {
    const verbs = ids.filter((c) => c.startsWith(`${topic} `)).map((c) => c.split(' ')[1]);
    return usage(`"${topic}" needs a verb: ${verbs.join(', ')}; run handoff help ${topic}`);
  }
  const typed = words.join(' ');
  let suggestion: string | undefined;
  if (verb === undefined) suggestion = closest(topic, [...topics, ...topLevel]);
  else if (topics.includes(topic)) {
    const near = closest(
      verb,
      ids.filter((c) => c.startsWith(`${topic} `)).map((c) => c.split(' ')[1]),
    );
    suggestion = near === undefined ? undefined : `${topic} ${near}`;
  } else suggestion = closest(typed, ids);
  return usage(
    suggestion === undefined
      ? `unknown command "${typed}"; run handoff help`
      : `unknown command "${typed}". Did you mean "${suggestion}"?`,
  );
}
