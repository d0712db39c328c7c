/** `handoff approval gate`: the pre-tool hook that lets an approved tool call run once (src/approvals/pre-tool.ts). */
import * as Flags from '@oclif/core/flags';
import { generatedUsage } from '../../cli/usage.js';
import { HandoffCommand } from '../../cli/base-command.js';
import type { CommandContext, CommandResult } from '../../cli/command.js';
import type { FlagsOf } from '../../cli/flags.js';
import { PRE_TOOL_HARNESSES, parseToolCall, type PreToolHarness } from '../../approvals/pre-tool-input.js';
import type { PreToolDecision } from '../../approvals/pre-tool.js';
import { adapterOf, harnessChoices } from '../../harnesses/index.js';

/** The decision in the harness's form (its adapter's): allow = exit 0; deny = exit 2 and the reason, or its JSON. */
function answer(h: PreToolHarness, d: PreToolDecision): CommandResult {
  const a = adapterOf(h).preTool!.answer(d.allow, d.allow ? '' : d.reason);
  return { exit: a.exit, text: a.stdout ?? '', errText: a.stderr };
}

export default class ApprovalGate extends HandoffCommand {
  static override summary = 'Pre-tool hook: a call that needs an approval runs only on an approval of exactly it';
  static override description =
    "Reads the pre-tool hook JSON of Claude Code or Codex (PreToolUse), Gemini CLI (BeforeTool), Copilot CLI (preToolUse) or Cursor (beforeShellExecution) on stdin. A call that matches no pattern of the contract block's require_approval: line (in the run's first user message) or of $HANDOFF_APPROVAL_PATTERNS is allowed without opening the store. A matching call is allowed only when an approved, unused approval of the contract's chain holds exactly the call (a shell command compared as receipts compare commands; any other call as the canonical JSON of {tool, input}) and, with HANDOFF_APPROVER_KEYS, is signed by an approver; that approval becomes used by this call in the same transaction, so it lets the call run once. Otherwise the call is denied in the harness's form (Claude Code, Codex and Gemini: exit 2 and the reason on stderr; Copilot: permissionDecision deny; Cursor: permission deny) with the exact handoff approval request to run. A guard at L1: a command hidden in sh -c or a script file is not stopped. See docs/hooks.md.";
  static override failOpen = true;
  static override flags = {
    harness: Flags.option({
      options: ['auto', ...PRE_TOOL_HARNESSES] as const,
      default: 'auto' as const,
      helpValue: harnessChoices(['auto', ...PRE_TOOL_HARNESSES]),
      description: 'Whose hook input and answer (default auto: recognized from the input)',
    })(),
    'on-store-error': Flags.option({ options: ['deny', 'allow'] as const, default: 'deny' as const })({
      helpValue: 'deny|allow',
      description: 'A matching call when the store cannot be asked: deny (default) or allow',
    }),
    json: Flags.boolean({ description: "Print the decision object on stdout (the exit is the harness form's)" }),
  };
  static override examples = [
    'handoff approval gate --harness claude',
    'handoff approval gate --harness codex --on-store-error allow',
  ];
  static override usage = generatedUsage(this);

  protected async perform(ctx: CommandContext<FlagsOf<typeof ApprovalGate>>): Promise<CommandResult> {
    const call = parseToolCall(ctx.stdinIsTTY ? '' : (await ctx.readStdin()).toString('utf8'), ctx.flags.harness);
    const { approvalGate } = await import('../../approvals/pre-tool.js');
    const d = await approvalGate(call, ctx.env, ctx.cwd, { onStoreError: ctx.flags['on-store-error'] });
    const a = answer(call.harness, d);
    if (!ctx.json) return a;
    if (a.errText !== undefined) ctx.stderr(`${a.errText}\n`);
    return {
      exit: a.exit,
      json: {
        status: d.allow ? 'ok' : 'denied',
        harness: call.harness,
        allow: d.allow,
        why: d.why,
        pattern: d.pattern ?? null,
        approval_id: d.allow ? (d.approvalId ?? null) : null,
        content: d.allow ? null : d.content,
        reason: d.allow ? null : d.reason,
      },
    };
  }
}
