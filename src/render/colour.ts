/**
 * Colour for human output, applied where output leaves the process so no verb formats twice.
 * Precedence: --json (never) > NO_COLOR (never) > FORCE_COLOR (on) > the stream is a TTY. The text itself never
 * changes: only ANSI styles are added around it, so a notice prefix keeps its exact words.
 */
import { Chalk, type ChalkInstance } from 'chalk';

export type Stream = 'stdout' | 'stderr';

/** The chalk level for one stream, or 0 for none. */
export function colourLevel(env: NodeJS.ProcessEnv, isTTY: boolean, json: boolean): 0 | 1 | 2 | 3 {
  if (json) return 0;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return 0;
  const force = env.FORCE_COLOR;
  if (force !== undefined) {
    if (force === '0' || force === 'false') return 0;
    if (force === '2') return 2;
    if (force === '3') return 3;
    return 1;
  }
  return isTTY ? 1 : 0;
}

const ID = /\b(?:a[0-9a-f]{16,}(?:\.[0-9a-f]{6,})?|R-[0-9a-f]{16}|P-[0-9a-f]{32})\b/g;
const ABS_PATH = /(^|[\s=(])(\/[^\s,;)]+)/g;
const SUCCESS = /^(?:OK:|Evidence recorded:|Brief .+ (?:created|extended)|Receipt R-[0-9a-f]{16} recorded)/;
const NOTICE = /^\[[A-Z][A-Z0-9 :_-]*\]/;
const FAILURE = /^(?:Rejected|Error):/;
const ERROR_LINE = /^(\s*)([A-Z][A-Z0-9_]{2,})( \[)/;
const TRAILING_CODE = / \[[A-Z][A-Z0-9_]{2,}\]$/;

function paintStdout(c: ChalkInstance, line: string): string {
  if (SUCCESS.test(line)) return c.green(line);
  return line
    .replace(ID, (id) => c.cyan(id))
    .replace(ABS_PATH, (_m, pre: string, path: string) => `${pre}${c.cyan(path)}`);
}

function paintStderr(c: ChalkInstance, line: string): string {
  let out = line;
  const failure = FAILURE.exec(out);
  if (failure) out = c.red.bold(failure[0]) + out.slice(failure[0].length);
  const notice = NOTICE.exec(out);
  if (notice) out = c.yellow(notice[0]) + out.slice(notice[0].length);
  out = out.replace(ERROR_LINE, (_m, indent: string, code: string, rest: string) => `${indent}${c.red(code)}${rest}`);
  out = out.replace(TRAILING_CODE, (m) => c.red(m));
  return out;
}

/** `text` with the styles of its stream, or `text` itself at level 0. */
export function paint(text: string, stream: Stream, level: 0 | 1 | 2 | 3): string {
  if (level === 0 || text === '') return text;
  const c = new Chalk({ level });
  const fn = stream === 'stdout' ? paintStdout : paintStderr;
  return text
    .split('\n')
    .map((line) => (line === '' ? line : fn(c, line)))
    .join('\n');
}
