import { fstatSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { EXIT, HandoffError, isHandoffError, usage } from '../errors.js';
import type { CommandContext, CommandDefinition, CommandResult, FlagValues } from './command.js';
import { COMMANDS, loadCommand } from './registry.js';
import { renderHelp, renderTopicHelp, renderTopLevelHelp } from './help.js';

const VERSION = '0.1.0';

/** Entry point of bin/run.js. Sets process.exitCode; never throws. */
export async function main(argv: string[]): Promise<void> {
  process.stdout.on('error', ignoreEpipe);
  process.stderr.on('error', ignoreEpipe);
  const [topic, verb] = argv;
  if (topic === undefined || topic === '--help' || topic === '-h' || topic === 'help') {
    process.stdout.write(renderTopLevelHelp());
    return;
  }
  if (topic === '--version' || topic === '-v') {
    process.stdout.write(`handoff ${VERSION}\n`);
    return;
  }
  const id = `${topic} ${verb ?? ''}`;
  const known = Object.keys(COMMANDS).filter((c) => c.startsWith(`${topic} `));
  if (known.length > 0 && (verb === '--help' || verb === '-h')) {
    process.stdout.write(renderTopicHelp(topic, known));
    return;
  }
  if (!(id in COMMANDS)) {
    const msg =
      verb === undefined
        ? known.length > 0
          ? `"${topic}" needs a verb: ${known.map((c) => c.split(' ')[1]).join(', ')}`
          : `unknown command "${topic}"; run handoff --help`
        : `unknown command "${topic} ${verb}"; run handoff --help`;
    const wantsJson = argv.includes('--json');
    finish(errorOutput(usage(msg), wantsJson, false, undefined));
    return;
  }
  const def = await loadCommand(id);
  const rawArgs = def.preprocess ? def.preprocess(argv.slice(2)) : argv.slice(2);
  const json = def.alwaysJson === true || (def.flags.json?.type === 'boolean' && beforeTerminator(rawArgs).includes('--json'));
  if (beforeTerminator(rawArgs).some((a) => a === '--help' || a === '-h')) {
    process.stdout.write(renderHelp(def));
    return;
  }
  let ctx: CommandContext;
  try {
    ctx = buildContext(def, rawArgs, json);
  } catch (e) {
    finish(errorOutput(e, json, def.failOpen === true, def));
    return;
  }
  try {
    const result = await def.run(ctx);
    finish(resultOutput(result, json));
  } catch (e) {
    finish(errorOutput(e, json, def.failOpen === true, def));
  }
}

function ignoreEpipe(err: NodeJS.ErrnoException): void {
  if (err.code !== 'EPIPE') throw err;
}

function beforeTerminator(args: string[]): string[] {
  const i = args.indexOf('--');
  return i === -1 ? args : args.slice(0, i);
}

function buildContext(def: CommandDefinition, rawArgs: string[], json: boolean): CommandContext {
  const options: Record<string, { type: 'string' | 'boolean'; multiple?: boolean }> = {};
  for (const [name, f] of Object.entries(def.flags)) options[name] = { type: f.type, multiple: f.multiple === true };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: rawArgs, options, strict: true, allowPositionals: true, tokens: true });
  } catch (e) {
    // node's parser explains itself in several sentences; the first one names the problem.
    throw usage(firstSentence((e as Error).message));
  }
  const terminator = parsed.tokens?.find((t) => t.kind === 'option-terminator');
  const positionals: string[] = [];
  const rest: string[] = [];
  for (const t of parsed.tokens ?? []) {
    if (t.kind !== 'positional') continue;
    if (def.passthrough && terminator !== undefined && t.index > terminator.index) rest.push(t.value);
    else positionals.push(t.value);
  }
  const argDefs = def.args ?? [];
  if (positionals.length > argDefs.length) {
    throw usage(`unexpected argument ${JSON.stringify(positionals[argDefs.length])}`);
  }
  const args: Record<string, string | undefined> = {};
  argDefs.forEach((a, i) => {
    if (positionals[i] === undefined && a.required) throw usage(`missing argument ${a.name}`);
    args[a.name] = positionals[i];
  });
  const env = process.env;
  return {
    id: def.id,
    flags: parsed.values as FlagValues,
    args,
    rest,
    env,
    cwd: process.cwd(),
    json,
    notice: (line) => process.stderr.write(line.endsWith('\n') ? line : `${line}\n`),
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    readStdin,
    stdinIsTTY: process.stdin.isTTY === true,
  };
}

async function readStdin(): Promise<Buffer> {
  // The process.stdin stream reads a directory or a closed descriptor as an empty input, so look at fd 0 first: only
  // a failed or impossible read is UNREADABLE_INPUT. The bytes themselves come from the stream, which (unlike a
  // readFileSync(0) interrupted by EAGAIN on a non-blocking pipe) never drops a chunk.
  let isDirectory: boolean;
  try {
    isDirectory = fstatSync(0).isDirectory();
  } catch (e) {
    throw unreadableStdin(e);
  }
  if (isDirectory) throw unreadableStdin(new Error('stdin is a directory'));
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  } catch (e) {
    throw unreadableStdin(e);
  }
  return Buffer.concat(chunks);
}

const unreadableStdin = (e: unknown): HandoffError =>
  new HandoffError('UNREADABLE_INPUT', EXIT.USAGE, `cannot read stdin: ${(e as Error).message}`);

interface Output {
  exit: number;
  stdout?: string;
  stderr?: string;
}

function resultOutput(result: CommandResult, json: boolean): Output {
  const exit = result.exit ?? EXIT.OK;
  if (json) return { exit, stdout: result.json ? `${JSON.stringify(result.json)}\n` : undefined };
  return { exit, stdout: withNewline(result.text), stderr: withNewline(result.errText) };
}

function withNewline(text: string | undefined): string | undefined {
  if (text === undefined || text === '') return undefined;
  return text.endsWith('\n') ? text : `${text}\n`;
}

function errorOutput(e: unknown, json: boolean, failOpen: boolean, def: CommandDefinition | undefined): Output {
  if (!isHandoffError(e)) {
    const err = e as Error;
    const message = oneLine(`internal error: ${err?.message ?? String(e)}`);
    const debug = process.env.HANDOFF_DEBUG === '1' && err?.stack ? `${err.stack}\n` : '';
    if (json && !failOpen) {
      return { exit: EXIT.INTERNAL, stdout: `${JSON.stringify({ status: 'error', code: 'INTERNAL', error: message })}\n`, stderr: debug || undefined };
    }
    const prefix = failOpen && def ? `handoff ${def.id}: ` : 'Error: ';
    return { exit: EXIT.INTERNAL, stderr: `${prefix}${message}\n${debug}` };
  }
  const message = messageOf(e, def);
  if (failOpen && def) {
    // Hook semantics: exit 2 would block the agent, so every problem of the gate itself fails open with exit 1.
    const exit = e.exit === EXIT.INTERNAL ? EXIT.INTERNAL : EXIT.REJECTED;
    const stdout = json ? `${JSON.stringify({ status: 'error', code: e.code, error: message, ...e.data })}\n` : undefined;
    return { exit, stdout, stderr: `handoff ${def.id}: ${message}; stop not gated\n` };
  }
  if (json) return { exit: e.exit, stdout: `${JSON.stringify({ status: e.status, code: e.code, error: message, ...e.data })}\n` };
  // The code ends the human line too, so an agent reading stderr can look it up in docs/errors.md.
  const label = e.status === 'rejected' ? 'Rejected' : 'Error';
  return { exit: e.exit, stderr: `${label}: ${message} [${e.code}]\n` };
}

/** One line: the message, its hint as the next sentence, and for a usage error the verb's usage line. */
function messageOf(e: HandoffError, def: CommandDefinition | undefined): string {
  const parts = [e.message];
  if (e.hint) parts.push(e.hint);
  if (e.code === 'USAGE' && def?.passthrough) parts.push('The command to run goes after --');
  if (e.code === 'USAGE' && def) parts.push(`Usage: ${def.usage}`);
  return parts.map((p) => oneLine(p).trim()).filter((p) => p !== '').reduce((acc, p) => `${sentence(acc)} ${p}`);
}

/** Ends a sentence with a period unless it already ends with punctuation. */
const sentence = (text: string): string => (/[.!?:;]$/.test(text) ? text : `${text}.`);

/** Folds every line break (and the blanks around it) into one space: a message is always one line. */
const oneLine = (text: string): string => text.replace(/\s*(?:\r\n|\r|\n|\u2028|\u2029)\s*/g, ' ').trim();

function firstSentence(text: string): string {
  const m = /^[^]*?[.!?](?=\s|$)/.exec(text.trim());
  return m ? m[0] : text.trim();
}

function finish(out: Output): void {
  if (out.stdout !== undefined) process.stdout.write(out.stdout);
  if (out.stderr !== undefined) process.stderr.write(out.stderr);
  process.exitCode = out.exit;
}
