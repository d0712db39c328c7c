/**
 * A verb's outcome as an MCP tool result: the verb's `--json` object as `structuredContent`,
 * its human output as the first text block, then the notices it printed on stderr (`[CANONICALIZED] ...`,
 * `[CONTINUATION opened] ...`) and, for `evidence_run`, the tail of the command's output. Whatever is not status
 * "ok" (a validation rejection, a refusal, an error) is `isError: true`, with the code in the object and at the end
 * of the human line, exactly as the command line prints it, but worded for a tool's caller (wording.ts: parameters,
 * never flags).
 */
import type { CommandResult } from '../cli/command.js';
import { errorOutput } from '../cli/output.js';

export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent: Record<string, unknown>;
  isError: boolean;
}

/** What follows the verb's own text: its notices (reworded with it) and, for evidence_run, the command's output (never). */
export interface Extra {
  notices: readonly string[];
  output: readonly string[];
}

/** Rewords a message for the tool's caller (wording.ts); identity when no tool was found. */
export type Reword = (text: string) => string;

export function toolResult(result: CommandResult, extra: Extra, reword: Reword): ToolResult {
  const json = result.json ?? { status: 'ok' };
  const human = [result.text, result.errText].filter((t): t is string => t !== undefined && t !== '').join('\n');
  return build(json, human, extra, reword);
}

/** A thrown failure (HandoffError or a bug), rendered by the command line's own error renderer. */
export function errorResult(e: unknown, extra: Extra, reword: Reword): ToolResult {
  const json = JSON.parse(errorOutput(e, true, undefined, process.env).stdout ?? '{}') as Record<string, unknown>;
  const human = errorOutput(e, false, undefined, process.env).stderr ?? '';
  return build(json, human, extra, reword);
}

function build(json: Record<string, unknown>, human: string, extra: Extra, reword: Reword): ToolResult {
  const texts = [reword(human.trimEnd()), ...extra.notices.map(reword), ...extra.output].filter((t) => t !== '');
  // A claim token (contract init's, a dispatch's) is for the shell caller that claims with it: no MCP result shows it.
  const { claim_token: _token, ...object } = json;
  for (const key of ['error', 'repair']) if (typeof object[key] === 'string') object[key] = reword(object[key]);
  return {
    content: texts.map((text) => ({ type: 'text' as const, text })),
    structuredContent: object,
    isError: json.status !== 'ok',
  };
}
