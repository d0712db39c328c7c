/**
 * The entry point of the bundle (bin/run.js -> dist/cli/handoff.cjs). oclif's Config holds the commands (explicit
 * strategy, read from the manifest), parses and runs them; this file only tells version, help and a verb apart, the
 * way oclif's own `run` does, without loading oclif's help module on a verb's path (docs/decisions.md).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from '@oclif/core/command';
import { Config } from '@oclif/core/config';
import { settings } from '@oclif/core/settings';
import { errorOutput, finish } from './output.js';
import { showHelp, unknownCommand } from './routing.js';
import { writeStd } from './stdio.js';

export { COMMANDS } from './registry.js';

/** docs/commands.md as the build renders it (npm run docs:commands, and the test that keeps the file in step). */
export async function commandsDoc(): Promise<string> {
  const { renderCommandsDoc } = await import('./commands-doc.js');
  return renderCommandsDoc(await loadConfig());
}

async function loadConfig(): Promise<Config> {
  // No TypeScript at run time: the bundle is the program (this also keeps oclif from looking for a tsconfig).
  settings.enableAutoTranspile = false;
  const pjson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
  return Config.load({ root: ROOT, pjson: pjson as never, userPlugins: false, devPlugins: false });
}

/** The package root: the bundle lives at dist/cli/, two levels below it. */
const ROOT = resolve(__dirname, '..', '..');

/** Entry point of bin/run.js. Sets process.exitCode; never throws. */
export async function main(argv: string[]): Promise<void> {
  try {
    await route(argv);
  } catch (e) {
    finish(errorOutput(e, beforeTerminator(argv).includes('--json'), undefined), { stdout: 0, stderr: 0 });
  }
}

async function route(argv: string[]): Promise<void> {
  const config = await loadConfig();
  if (argv[0] === '--version' || argv[0] === '-v') {
    writeStd('stdout', `${config.userAgent}\n`);
    return;
  }
  const words = leadingWords(argv);
  const head = beforeTerminator(argv);
  if (argv.length === 0 || (argv[0] !== 'help' && (head.includes('--help') || head.includes('-h')))) {
    await showHelp(config, words);
    return;
  }
  // A topic and its verb, or a verb without a topic (`help`, `mcp`), whose surplus words are then its arguments.
  const found =
    (words.length === 2 ? config.findCommand(words.join(':')) : undefined) ?? (words.length > 0 ? config.findCommand(words[0]) : undefined);
  if (found === undefined) throw unknownCommand(config, words);
  const Verb = (await found.load()) as unknown as new (argv: string[], config: Config) => Command;
  const verb = new Verb(argv.slice(found.id.split(':').length), config);
  verb.id = found.id;
  // What oclif's Config.runCommand does, minus its plugin hooks (there are no plugins) and minus Command.run's
  // second Config.load.
  await (verb as unknown as { _run(): Promise<unknown> })._run();
}

/** The command words at the front of argv (topic, verb), up to the first flag. */
function leadingWords(argv: string[]): string[] {
  const out: string[] = [];
  for (const a of argv) {
    if (a.startsWith('-') || out.length === 2) break;
    out.push(a);
  }
  return out;
}

function beforeTerminator(args: string[]): string[] {
  const i = args.indexOf('--');
  return i === -1 ? args : args.slice(0, i);
}

