/**
 * oclif's parse errors mapped into the tool's error model: every one is USAGE, exit 2, with a
 * one-line message of our own (oclif's span several lines and end in "See more help with --help").
 */
import { usage, type HandoffError } from '../errors.js';
import { closest, didYouMean } from './suggest.js';

interface ParseErrorLike {
  message?: string;
  args?: { name?: string; input?: string }[] | string[];
  flags?: string[];
  parse?: unknown;
  oclif?: unknown;
}

/** The usage error for an oclif parse failure, or undefined when `e` is not one (then it is a real failure). */
export function usageFromParseError(e: unknown, knownFlags: readonly string[], passthrough: boolean): HandoffError | undefined {
  if (typeof e !== 'object' || e === null) return undefined;
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
  m = /^Expected --([\w-]+)=(.*) to be one of: (.*)$/.exec(first);
  if (m) return usage(`--${m[1]} ${JSON.stringify(m[2])} must be one of ${m[3]}`);
  if (err.parse !== undefined || kind === 'CLIParseError' || kind === 'FailedFlagValidationError') {
    return usage(first.replace(/See more help with --help$/, '').trim());
  }
  return undefined;
}
