/**
 * Where a verb's result or failure becomes bytes (architecture.md "Commands"): JSON mode prints one object on stdout;
 * human mode prints text on stdout and failures as one line on stderr, ending in the code. Hook verbs (failOpen)
 * turn every failure of their own into exit 1 ("stop not gated"), never the blocking exit 2.
 */
import { verbExit } from '../codes/exits.js';
import { EXIT, isHandoffError, statusOf, type HandoffError } from '../errors.js';
import { paint } from '../render/colour.js';
import { escapeControls } from '../render/escape.js';
import type { CommandResult } from './command.js';
import type { ExecuteIO } from './io.js';

export interface Output {
  exit: number;
  stdout?: string;
  stderr?: string;
}

/** What the renderers need to know about the verb (absent when the failure came before a verb was found). */
export interface VerbInfo {
  id: string;
  usage: string;
  failOpen: boolean;
}

export function resultOutput(result: CommandResult, json: boolean): Output {
  const exit = result.exit ?? EXIT.OK;
  if (json) return { exit, stdout: result.json ? `${JSON.stringify(result.json)}\n` : undefined };
  return { exit, stdout: withNewline(result.text), stderr: withNewline(result.errText) };
}

/** Human text, escaped (no raw control characters but tab and line feed) and newline-terminated. */
function withNewline(text: string | undefined): string | undefined {
  if (text === undefined || text === '') return undefined;
  const safe = escapeControls(text);
  return safe.endsWith('\n') ? safe : `${safe}\n`;
}

export function errorOutput(e: unknown, json: boolean, verb: VerbInfo | undefined, env: NodeJS.ProcessEnv): Output {
  const failOpen = verb?.failOpen === true;
  if (!isHandoffError(e)) {
    const err = e as Error;
    const message = oneLine(`internal error: ${err?.message ?? String(e)}`);
    const debug = env.HANDOFF_DEBUG === '1' && err?.stack ? `${err.stack}\n` : '';
    if (json && !failOpen) {
      return {
        exit: EXIT.INTERNAL,
        stdout: `${JSON.stringify({ status: 'error', code: 'INTERNAL', error: message })}\n`,
        stderr: debug || undefined,
      };
    }
    const prefix = failOpen && verb ? `handoff ${verb.id}: ` : 'Error: ';
    return { exit: EXIT.INTERNAL, stderr: `${prefix}${message}\n${debug}` };
  }
  const message = messageOf(e, verb);
  // The one place a verb's exit override (src/codes/exits.ts) is applied: the gate's own failures exit 1, and so on.
  const exit = verbExit(verb?.id, e.code, e.exit);
  if (failOpen && verb) {
    // Hook semantics: the stop is let through ("not gated"); the object says error whatever the exit.
    const stdout = json
      ? `${JSON.stringify({ status: 'error', code: e.code, error: message, ...e.data })}\n`
      : undefined;
    const gated = verb.id === 'approval gate' ? 'Call not gated.' : 'Stop not gated.';
    return { exit, stdout, stderr: `handoff ${verb.id}: ${sentence(escapeControls(message))} ${gated}\n` };
  }
  const status = statusOf(exit);
  if (json) return { exit, stdout: `${JSON.stringify({ status, code: e.code, error: message, ...e.data })}\n` };
  // The code ends the human line too, so an agent reading stderr can look it up in docs/errors.md.
  const label = status === 'rejected' ? 'Rejected' : 'Error';
  return { exit, stderr: `${label}: ${escapeControls(message)} [${e.code}]\n` };
}

/** One line: the message, its hint as the next sentence, and for a usage error the verb's usage line. */
function messageOf(e: HandoffError, verb: VerbInfo | undefined): string {
  const parts = [e.message];
  if (e.hint) parts.push(e.hint);
  if (e.code === 'USAGE' && verb) parts.push(`Usage: ${verb.usage}`);
  return parts
    .map((p) => oneLine(p).trim())
    .filter((p) => p !== '')
    .reduce((acc, p) => `${sentence(acc)} ${p}`);
}

/** Ends a sentence with a period unless it already ends with punctuation. */
const sentence = (text: string): string => (/[.!?:;]$/.test(text) ? text : `${text}.`);

/** Folds every line break (and the blanks around it) into one space: a message is always one line. */
export const oneLine = (text: string): string => text.replace(/\s*(?:\r\n|\r|\n|\u2028|\u2029)\s*/g, ' ').trim();

/** Writes an output through `io`, coloured per stream at the given levels (0: plain); returns its exit code. */
export function finish(
  out: Output,
  levels: { stdout: 0 | 1 | 2 | 3; stderr: 0 | 1 | 2 | 3 },
  io: Pick<ExecuteIO, 'stdout' | 'stderr'>,
): number {
  if (out.stdout !== undefined) io.stdout(paint(out.stdout, 'stdout', levels.stdout));
  if (out.stderr !== undefined) io.stderr(paint(out.stderr, 'stderr', levels.stderr));
  return out.exit;
}
