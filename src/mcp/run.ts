/**
 * `evidence_run`: the verb's own step 1 (evidenceRunRequest: ids, command, flags) and its service, with the child's
 * output kept for the tool result instead of passed through: the server's stdout is the MCP channel.
 */
import type { CommandResult, FlagValues } from '../cli/command.js';
import { evidenceRunRequest } from '../receipts/options.js';
import type { Args } from './inputs.js';
import type { ToolCall } from './tools.js';

export async function runCommand(args: Args, call: ToolCall): Promise<CommandResult> {
  const text = (name: string): string | undefined => args[name] as string | undefined;
  const flags: FlagValues = {
    'draft-id': text('draft_id'),
    'agent-id': text('agent_id'),
    brief: text('brief'),
    ac: text('ac'),
    timeout: typeof args.timeout === 'number' ? String(args.timeout) : undefined,
    cwd: text('cwd'),
    shell: args.shell === true,
    workspace: text('workspace'),
  };
  const request = evidenceRunRequest(flags, args.command as string[], call.io.env, call.io.cwd);
  const { withAmbiguityRendering } = await import('../render/ambiguity.js');
  const { evidenceRun } = await import('../receipts/run-service.js');
  return withAmbiguityRendering(() => evidenceRun({ ...request, sinks: call.output, notice: call.io.notice }));
}
