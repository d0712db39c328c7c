/**
 * oclif's parse errors mapped into the tool's error model: every one is USAGE, exit 2, with a
 * one-line message of our own (oclif's span several lines and end in "See more help with --help").
 */
import { isHandoffError, usage, type HandoffError } from '../errors.js';
import { closest, didYouMean } from './suggest.js';

interface ParseErrorLike {
  message?: string;
  args?: { name?: string; input?: string }[] | string[];
  flags?: string[];
  parse?: unknown;
  oclif?: unknown;
}

/** The usage error for an oclif parse failure, or undefined when `e` is not one (then it is a real failure). */
export function usageFromParseError(
  e: unknown,
  knownFlags: readonly string[],
  passthrough: boolean,
): HandoffError | undefined {
  if (typeof e !== 'object' || e === null) return undefined;
  // A flag's own parse (src/cli/flags.ts) threw the tool's error; oclif wrapped its message in text of its own.
  if (isHandoffError(e)) return unwrapped(e);
  const err = e as ParseErrorLike;
  const message = err.message ?? '';
  // oclif's parse errors are told apart by class; the bundle keeps class names (esbuild keepNames).
  const kind = (e as { constructor?: { name?: string } }).constructor?.name;
  switch (kind) {
    case 'RequiredArgsError': {
      const names = (err.args as { name?: string }[]).map((a) => a.name ?? '?');
      return usage(`missing argument${names.length === 1 ? '' : 's'} ${names.join(', ')}`);
    }
    case 'UnexpectedArgsError': {
      const extra = (err.args as string[])[0];
      const where = passthrough ? '. The command to run goes after --' : '';
      return usage(`unexpected argument ${JSON.stringify(extra)}${where}`);
    }
    case 'NonExistentFlagsError': {
      const flag = err.flags?.[0] ?? '';
      const name = flag.replace(/^-+/, '').split('=')[0];
      const hint = closest(name, knownFlags);
      return usage(`unknown flag ${flag}${didYouMean(hint === undefined ? undefined : `--${hint}`)}`);
    }
    default:
      break;
  }
  const first = message.split('\n')[0].trim();
  let m = /^Flag --([\w-]+) expects (?:a value|one of these values: (.*))$/.exec(first);
  if (m) {
    const choices = m[2] === undefined ? '' : ` (one of ${m[2]})`;
    return usage(`flag --${m[1]} needs a value${choices}; a value that starts with - is written --${m[1]}=VALUE`);
  }
  m = /^Flag --([\w-]+) can only be specified once$/.exec(first);
  if (m) return usage(`flag --${m[1]} is given more than once`);
  m = /^Expected --([\w-]+)=([\s\S]*) to be one of: (.*)$/.exec(message.replace(/\s*See more help with --help$/, ''));
  if (m) return usage(`--${m[1]} ${JSON.stringify(m[2])} must be ${choices(m[3].split(', '))}`);
  if (kind === 'FailedFlagValidationError') return usage(validationMessage(message, flagDefs(err)));
  if (err.parse !== undefined || kind === 'CLIParseError') {
    return usage(first.replace(/See more help with --help$/, '').trim());
  }
  return undefined;
}

/** `block or allow`, `one of a, b, c`: the allowed values of an `options` flag, named in the message. */
const choices = (values: readonly string[]): string =>
  values.length === 2 ? `${values[0]} or ${values[1]}` : `one of ${values.join(', ')}`;

/** The error a flag's parse threw, with oclif's `Parsing --flag` prefix and help suffix taken off its message. */
function unwrapped(e: HandoffError): HandoffError {
  const m = /^Parsing --[\w-]+ \n\t([\s\S]*)\nSee more help with --help$/.exec(e.message);
  if (m) e.message = m[1];
  return e;
}

// eslint-disable-next-line no-control-regex -- the escape sequences oclif's colours add
const ANSI = /\u001b\[[0-9;]*m/g;

/** oclif's flag-relationship failures (`exclusive`, a required flag) in one line of the tool's own. */
function validationMessage(message: string, defs: Record<string, { options?: readonly string[] }>): string {
  const reasons = message
    .split('\n')
    .slice(1)
    // oclif dims the reasons when it thinks a terminal reads them.
    .map((line) => line.replace(ANSI, '').trim())
    .filter((line) => line !== '' && line !== 'See more help with --help');
  const texts = reasons.map((reason) => {
    const both = /^--([\w-]+)=[\s\S]* cannot also be provided when using --([\w-]+)$/.exec(reason);
    if (both) return `--${both[2]} and --${both[1]} cannot be given together`;
    const missing = /^Missing required flag ([\w-]+)$/.exec(reason);
    const options = missing ? defs[missing[1]]?.options : undefined;
    if (missing) return `--${missing[1]} is required${options ? ` (one of ${options.join(', ')})` : ''}`;
    return reason;
  });
  return texts.length === 0 ? message.split('\n')[0].trim() : texts.join('; ');
}

/** The verb's flag definitions, which oclif's parse error carries (for the allowed values of a missing flag). */
const flagDefs = (err: ParseErrorLike): Record<string, { options?: readonly string[] }> =>
  (err.parse as { input?: { flags?: Record<string, { options?: readonly string[] }> } } | undefined)?.input?.flags ??
  {};
