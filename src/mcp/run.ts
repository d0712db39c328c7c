/**
 * `evidence_run`: the verb's own step 1 (evidenceRunRequest: ids, command, flags) and its service, with the child's
 * output kept for the tool result instead of passed through: the server's stdout is the MCP channel. `command` is
 * argv (an array of words) or, with `shell: true`, one shell string (a string, or an array of exactly one).
 */
import type { CommandResult, FlagValues } from '../cli/command.js';
import { usage } from '../errors.js';
import { evidenceRunRequest } from '../receipts/options.js';
import type { Args } from './inputs.js';
import type { ToolCall } from './tools.js';

/** The command as the verb's words after `--`, checked with MCP's own words (never the CLI's `--shell`). */
export function commandWords(command: unknown, shell: boolean): string[] {
  if (typeof command === 'string') {
    if (!shell) {
      throw usage(
        `command is a string, which runs only with shell: true (through /bin/sh -c); to run a program without a shell, pass its words as an array, e.g. ${JSON.stringify(command.trim().split(/\s+/))}`,
      );
    }
    if (command.trim() === '') throw usage('command must be a non-blank shell string');
    return [command];
  }
  const words = command as string[];
  if (words.length === 0)
    throw usage('command must name a program: an array of at least one word, e.g. ["npm", "test"]');
  if (shell && words.length !== 1) {
    throw usage(`with shell: true, command is one shell string (got an array of ${words.length}); pass it as a string`);
  }
  return words;
}

export async function runCommand(args: Args, call: ToolCall): Promise<CommandResult> {
  const text = (name: string): string | undefined => args[name] as string | undefined;
  const shell = args.shell === true;
  const flags: FlagValues = {
    'draft-id': text('draft_id'),
    'agent-id': text('agent_id'),
    brief: text('brief'),
    ac: text('ac'),
    timeout: typeof args.timeout === 'number' ? String(args.timeout) : undefined,
    cwd: text('cwd'),
    shell,
    workspace: text('workspace'),
  };
  const request = evidenceRunRequest(flags, commandWords(args.command, shell), call.io.env, call.io.cwd);
  const { withAmbiguityRendering } = await import('../render/ambiguity.js');
  const { evidenceRun } = await import('../receipts/run-service.js');
  return withAmbiguityRendering(() =>
    evidenceRun({ ...request, sinks: call.output, notice: call.io.notice, signal: call.signal }),
  );
}

/** `contract_verify`: the verb's request from the tool's parameters, the child's output kept for the result. */
export async function verifyCommand(args: Args, call: ToolCall): Promise<CommandResult> {
  const flags: FlagValues = {
    'draft-id': args.draft_id as string | undefined,
    'agent-id': args.agent_id as string | undefined,
    timeout: typeof args.timeout === 'number' ? String(args.timeout) : undefined,
    workspace: args.workspace as string | undefined,
  };
  const { addressingFrom } = await import('../drafts/cli-flags.js');
  const { timeoutMs, workspaceFlag } = await import('../receipts/options.js');
  const { withAmbiguityRendering } = await import('../render/ambiguity.js');
  const { contractVerify } = await import('../receipts/verify-service.js');
  return withAmbiguityRendering(() =>
    contractVerify({
      env: call.io.env,
      cwd: call.io.cwd,
      addressing: addressingFrom(flags),
      timeoutMs: timeoutMs(flags),
      workspaceFlag: workspaceFlag(flags),
      sinks: call.output,
      notice: call.io.notice,
    }),
  );
}
