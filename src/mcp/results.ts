/**
 * A verb's outcome as an MCP tool result: the verb's `--json` object as `structuredContent`,
 * its human output as the first text block, then the notices it printed on stderr (`[CANONICALIZED] ...`,
 * `[CONTINUATION opened] ...`) and, for `evidence_run`, the tail of the command's output. Whatever is not status
 * "ok" (a validation rejection, a refusal, an error) is `isError: true`, with the code in the object and at the end
 * of the human line, exactly as the command line prints it.
 */
import type { CommandResult } from '../cli/command.js';
import { errorOutput } from '../cli/output.js';

export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent: Record<string, unknown>;
  isError: boolean;
}

export function toolResult(result: CommandResult, extra: readonly string[]): ToolResult {
  const json = result.json ?? { status: 'ok' };
  const human = [result.text, result.errText].filter((t): t is string => t !== undefined && t !== '').join('\n');
  return build(json, human, extra);
}

/** A thrown failure (HandoffError or a bug), rendered by the command line's own error renderer. */
export function errorResult(e: unknown, extra: readonly string[]): ToolResult {
  const json = JSON.parse(errorOutput(e, true, undefined).stdout ?? '{}') as Record<string, unknown>;
  const human = errorOutput(e, false, undefined).stderr ?? '';
  return build(json, human, extra);
}

function build(json: Record<string, unknown>, human: string, extra: readonly string[]): ToolResult {
  const texts = [human.trimEnd(), ...extra].filter((t) => t !== '');
  return {
    content: texts.map((text) => ({ type: 'text' as const, text })),
    structuredContent: json,
    isError: json.status !== 'ok',
  };
}
