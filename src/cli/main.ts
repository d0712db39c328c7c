/**
 * The entry point of the bundle (bin/run.js -> dist/cli/handoff.cjs). oclif's Config holds the commands (explicit
 * strategy, read from the manifest), parses and runs them; this file only tells version, help and a verb apart, the
 * way oclif's own `run` does, without loading oclif's help module on a verb's path (docs/decisions.md).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Config } from '@oclif/core/config';
import { settings } from '@oclif/core/settings';
import type { HandoffCommand } from './base-command.js';
import { bufferIO, processIO, type BufferIOOptions, type ExecuteIO, type ExecuteResult } from './io.js';
import { errorOutput, finish } from './output.js';
import { showHelp, unknownCommand } from './routing.js';

export { bufferIO, type BufferIOOptions, type ExecuteIO, type ExecuteResult } from './io.js';

export { COMMANDS } from './registry.js';

/** docs/commands.md as the build renders it (npm run docs:commands, and the test that keeps the file in step). */
export async function commandsDoc(): Promise<string> {
  const { renderCommandsDoc } = await import('./commands-doc.js');
  return renderCommandsDoc(await loadConfig());
}

/**
 * oclif's Config, loaded for each call: oclif keeps state in it (a command it has loaded, help's sorting), so calls in
 * one process never share one.
 */
async function loadConfig(): Promise<Config> {
  // No TypeScript at run time: the bundle is the program (this also keeps oclif from looking for a tsconfig).
  settings.enableAutoTranspile = false;
  const pjson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
  return Config.load({ root: ROOT, pjson: pjson as never, userPlugins: false, devPlugins: false });
}

/** The package root: the bundle lives at dist/cli/, two levels below it. */
const ROOT = resolve(__dirname, '..', '..');

/** Entry point of bin/run.js: the verb on the process's own input and output; sets process.exitCode, never throws. */
export async function main(argv: string[]): Promise<void> {
  process.exitCode = await run(argv, processIO());
}

/**
 * The in-process core: runs `handoff ...argv` on `io` and returns the exit code with what was written (when `io`
 * collects: a bufferIO; pass its options instead of an io to get one made). Nothing process-wide is read or changed:
 * env, cwd, stdin and the terminals all come from `io`. Never throws.
 */
export async function execute(argv: string[], io: ExecuteIO | BufferIOOptions): Promise<ExecuteResult> {
  if ('readStdin' in io) return { exit: await run(argv, io), stdout: '', stderr: '' };
  const buffers = bufferIO(io);
  const exit = await run(argv, buffers);
  return { exit, ...buffers.collected() };
}

async function run(argv: string[], io: ExecuteIO): Promise<number> {
  try {
    return await route(argv, io);
  } catch (e) {
    return finish(
      errorOutput(e, beforeTerminator(argv).includes('--json'), undefined, io.env),
      { stdout: 0, stderr: 0 },
      io,
    );
  }
}

async function route(argv: string[], io: ExecuteIO): Promise<number> {
  const config = await loadConfig();
  if (argv[0] === '--version' || argv[0] === '-v' || (argv[0] === 'version' && argv.length === 1)) {
    // The command's name, not the package's (handoff-cli): what people type and what the tests and scripts match.
    io.stdout(`${config.bin}/${config.version} ${config.platform}-${config.arch} node-${process.version}\n`);
    return 0;
  }
  const words = leadingWords(argv);
  const head = beforeTerminator(argv);
  if (argv.length === 0 || (argv[0] !== 'help' && (head.includes('--help') || head.includes('-h')))) {
    await showHelp(config, words, io);
    return 0;
  }
  // A topic and its verb, or a verb without a topic (`help`, `mcp`), whose surplus words are then its arguments.
  const found =
    (words.length === 2 ? config.findCommand(words.join(':')) : undefined) ??
    (words.length > 0 ? config.findCommand(words[0]) : undefined);
  // A topic alone (`handoff contract`) asks what it holds: its help, exit 0.
  if (found === undefined && words.length === 1 && config.findTopic(words[0]) !== undefined) {
    await showHelp(config, words, io);
    return 0;
  }
  if (found === undefined) throw unknownCommand(config, words);
  const Verb = (await found.load()) as unknown as new (argv: string[], config: Config) => HandoffCommand;
  const verb = new Verb(argv.slice(found.id.split(':').length), config);
  verb.id = found.id;
  // What oclif's Config.runCommand does, minus its plugin hooks (there are no plugins) and minus Command.run's
  // second Config.load: the verb's own run, on `io`.
  return verb.execute(io);
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
