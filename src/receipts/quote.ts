/**
 * The display string of a receipt: argv joined with shell-style quoting, so that pasting it into
 * a POSIX shell runs the same argv. Under `--shell` the one shell string is shown as given.
 */

/** Characters that never need quoting in a POSIX shell word (as Python's shlex.quote). */
const SAFE_WORD_RE = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** Quotes one argument for a POSIX shell: safe words as is, everything else in single quotes (`'` as `'\''`). */
export function shellQuote(arg: string): string {
  if (arg === '') return "''";
  if (SAFE_WORD_RE.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** The `command` column: argv quoted and joined by single spaces, or the shell string itself. */
export function displayCommand(argv: readonly string[], shell: boolean): string {
  if (shell) return argv[0] ?? '';
  return argv.map(shellQuote).join(' ');
}
