import { generatedUsage } from '../../cli/usage.js';
import { HandoffCommand } from '../../cli/base-command.js';
import type { CommandContext, CommandResult } from '../../cli/command.js';
import { ADDRESSING_FLAGS, JSON_FLAG, TIMEOUT_FLAG, WORKSPACE_FLAG } from '../../cli/flags.js';
import { addressingFrom } from '../../drafts/cli-flags.js';
import { timeoutMs, workspaceFlag } from '../../receipts/options.js';

export default class ContractVerify extends HandoffCommand {
  static override summary = "Re-run the draft's verification command as a receipt";
  static override description = [
    "Runs the tip draft's evidence_report.verification.command with /bin/sh -c in the current directory, exactly as",
    '`handoff evidence run --shell` would, records the receipt, then writes verification.receipt (the new id) and',
    'verification.result (pass only when the command passed, else fail or unproven) in one validated write.',
    'Exit 0 when it passed; 1 (RECEIPT_FAILED) when it failed or was unproven, with the receipt and the update kept;',
    '1 VERIFY_CONTRACT_CLOSED / VERIFY_NO_COMMAND before anything runs; 4 DRAFT_APPEND_FAILED when the update failed.',
  ].join(' ');
  static override flags = {
    ...ADDRESSING_FLAGS,
    timeout: TIMEOUT_FLAG,
    workspace: WORKSPACE_FLAG,
    json: JSON_FLAG,
  };
  static override examples = ['handoff contract verify --draft-id a0123456789abcdef.0123456789ab --timeout 300'];
  static override usage = generatedUsage(this);

  protected async perform(ctx: CommandContext): Promise<CommandResult> {
    const request = {
      env: ctx.env,
      cwd: ctx.cwd,
      addressing: addressingFrom(ctx.flags),
      timeoutMs: timeoutMs(ctx.flags),
      workspaceFlag: workspaceFlag(ctx.flags),
    };
    const { withAmbiguityRendering } = await import('../../render/ambiguity.js');
    const { withLineDiscipline } = await import('../../receipts/sinks.js');
    const { contractVerify } = await import('../../receipts/verify-service.js');
    return withLineDiscipline(ctx.passthrough, ctx.json, ctx.notice, (sinks, notice) =>
      withAmbiguityRendering(() => contractVerify({ ...request, sinks, notice })),
    );
  }
}
