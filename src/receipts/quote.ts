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

// eslint-disable-next-line no-control-regex -- control characters are what needs ANSI-C quoting
const CONTROL_RE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/** `$'…'` (bash, zsh, ksh and POSIX.1-2024 sh): an argument holding control characters, written on one line. */
function ansiQuote(arg: string): string {
  // eslint-disable-next-line no-control-regex -- the same characters, with the two that end or escape the quote
  const body = arg.replace(/[\\'\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => {
    if (c === '\\') return '\\\\';
    if (c === "'") return "\\'";
    if (c === '\n') return '\\n';
    if (c === '\t') return '\\t';
    if (c === '\r') return '\\r';
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
  return `$'${body}'`;
}

/**
 * The command as a user copies it from `evidence show`: one line that a shell splits back into the same argv (each
 * argument shell-quoted; one with control characters `$'…'`-quoted), printed as is, never escaped again for display.
 * A `--shell` string is shown as given; undefined when it holds control characters (the caller escapes it then).
 */
export function copyableCommand(argv: readonly string[], shell: boolean): string | undefined {
  if (shell) return CONTROL_RE.test(argv[0] ?? '') ? undefined : (argv[0] ?? '');
  return argv.map((a) => (CONTROL_RE.test(a) ? ansiQuote(a) : shellQuote(a))).join(' ');
}
