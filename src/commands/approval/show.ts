/** `handoff approval show`: one approval, whole: its content, fingerprint, status, who decided when, and its use. */
import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { generatedUsage } from '../../cli/usage.js';
import { HandoffCommand } from '../../cli/base-command.js';
import type { CommandContext, CommandResult } from '../../cli/command.js';
import { jsonQuote, usage } from '../../errors.js';

const APPROVAL_ID_RE = /^P-[0-9a-f]{32}$/;

export default class ApprovalShow extends HandoffCommand {
  static override summary = 'Show one approval, with its whole content';
  static override args = {
    APPROVAL_ID: Args.string({ required: true, description: 'The approval id (P- and 32 hex)', ignoreStdin: true }),
  };
  static override description =
    'Prints the whole content of an approval, its fingerprint (the sha256 of the content), its status, who decided it and when, and which handoff used it. While the approval can be cited (pending or approved) it also prints the ready input of `handoff contract fill --json-file -` that writes the content and the id into the envelope. The human output shows control and invisible format characters (bidi overrides, zero-width characters) as <U+XXXX>, so what you read is what the bytes say; --json prints the content raw. Reads only.';
  static override flags = {
    json: Flags.boolean({ description: 'Print one JSON object' }),
  };
  static override examples = ['handoff approval show P-0123456789abcdef0123456789abcdef'];
  static override usage = generatedUsage(this);

  protected async perform(ctx: CommandContext): Promise<CommandResult> {
    const id = ctx.args.APPROVAL_ID!;
    if (!APPROVAL_ID_RE.test(id))
      throw usage(`APPROVAL_ID ${jsonQuote(id)} is not an approval id (pattern ^P-[0-9a-f]{32}$)`);
    const { showApproval } = await import('../../approvals/decide.js');
    const row = await showApproval(ctx.env, ctx.cwd, id);
    const { exposeApproval } = await import('../../store/approvals.js');
    const { approvalShowText, fillFields } = await import('../../render/approval.js');
    return { json: { status: 'ok', approval: exposeApproval(row), ...fillFields(row) }, text: approvalShowText(row) };
  }
}
