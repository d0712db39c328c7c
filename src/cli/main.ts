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
import { COMMANDS } from './registry.js';
import { showHelp, unknownCommand } from './routing.js';

export { bufferIO, type BufferIOOptions, type ExecuteIO, type ExecuteResult } from './io.js';

export { COMMANDS } from './registry.js';

/**
 * The verbs an agent calls on every step and at every stop (bin/run.js's HOT_VERBS and STOP_VERBS; a test keeps the
 * two lists equal) run without oclif's Config.load, which reads package.json and the manifest and builds the plugin,
 * its commands and topics (milliseconds of every call): given as `topic verb`, their class comes from the command table
 * and parses with LEAN_CONFIG. None of them reads its config; help, version and every other verb still load it.
 */
export const LEAN_VERBS: ReadonlySet<string> = new Set([
  'contract:init',
  'contract:set',
  'contract:add',
  'contract:fill',
  'contract:view',
  'contract:validate',
  'contract:gate',
  'contract:finalize',
  'approval:gate',
]);

/**
 * What oclif's Command asks of its config while it is built and parses: the bin (its debug name; oclif's debug is a
 * no-op in the bundle) and the `preparse` hook, which only plugins register (handoff has none), so it answers none.
 */
const LEAN_CONFIG = {
  bin: 'handoff',
  runHook: () => Promise.resolve({ successes: [], failures: [] }),
} as unknown as Config;

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
  const lean = leanVerb(argv);
  if (lean !== undefined) return runVerb(COMMANDS[lean], lean, argv, LEAN_CONFIG, io);
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
  return runVerb(await found.load(), found.id, argv, config, io);
}

/**
 * What oclif's Config.runCommand does, minus its plugin hooks (there are no plugins) and minus Command.run's second
 * Config.load: the verb's own run, on `io`.
 */
function runVerb(command: unknown, id: string, argv: string[], config: Config, io: ExecuteIO): Promise<number> {
  const Verb = command as new (argv: string[], config: Config) => HandoffCommand;
  const verb = new Verb(argv.slice(id.split(':').length), config);
  verb.id = id;
  return verb.execute(io);
}

/** The id of a LEAN_VERBS verb that `argv` runs (not its help), else undefined. */
function leanVerb(argv: string[]): string | undefined {
  if (argv.length < 2 || argv[0].startsWith('-') || argv[1].startsWith('-')) return undefined;
  const id = `${argv[0]}:${argv[1]}`;
  if (!LEAN_VERBS.has(id)) return undefined;
  const head = beforeTerminator(argv);
  return head.includes('--help') || head.includes('-h') ? undefined : id;
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
