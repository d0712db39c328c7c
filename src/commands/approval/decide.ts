/** `handoff approval decide`: one transition, decided inside the write. */
import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { generatedUsage } from '../../cli/usage.js';
import { HandoffCommand } from '../../cli/base-command.js';
import type { CommandContext, CommandResult } from '../../cli/command.js';
import type { FlagsOf } from '../../cli/flags.js';
import { nonBlank } from '../../cli/list-flags.js';
import { jsonQuote, usage } from '../../errors.js';

const DECISIONS = ['approved', 'rejected', 'revoked', 'expired'] as const;
const APPROVAL_ID_RE = /^P-[0-9a-f]{32}$/;

export default class ApprovalDecide extends HandoffCommand {
  static override summary = 'Decide a pending approval';
  static override args = {
    APPROVAL_ID: Args.string({ required: true, description: 'The approval id (P- and 32 hex)', ignoreStdin: true }),
  };
  static override description =
    "Decides an approval: pending becomes approved, rejected or expired; an approved one may be revoked until its executing turn uses it (`used` is set by that turn's finalize, is final, and is no decision). Any other transition is refused (APPROVAL_TRANSITION_REFUSED). Deciding again with the same decision is a no-op. The output repeats the fingerprint and the first lines of the content (control and invisible format characters shown as <U+XXXX>); an approval decided approved also gets the ready input of `handoff contract fill --json-file -` for the executing turn.";
  static override flags = {
    decision: Flags.option({ options: DECISIONS })({
      required: true,
      helpValue: 'DECISION',
      description:
        'approved, rejected, revoked or expired (used is set by the finalize of the executing turn, never decided)',
    }),
    by: Flags.string({ helpValue: 'NAME', description: 'Who decided' }),
    note: Flags.string({ helpValue: 'TEXT', description: 'A note stored with the decision' }),
    key: Flags.string({
      helpValue: 'PATH',
      description: "The approver's private key: signs the decision (default: HANDOFF_SIGNING_KEY, if set)",
    }),
    json: Flags.boolean({ description: 'Print one JSON object' }),
  };
  static override examples = [
    'handoff approval decide P-0123456789abcdef0123456789abcdef --decision approved --by alice',
  ];
  static override usage = generatedUsage(this);

  protected async perform(ctx: CommandContext<FlagsOf<typeof ApprovalDecide>>): Promise<CommandResult> {
    const id = ctx.args.APPROVAL_ID!;
    if (!APPROVAL_ID_RE.test(id))
      throw usage(`APPROVAL_ID ${jsonQuote(id)} is not an approval id (pattern ^P-[0-9a-f]{32}$)`);
    const decision = ctx.flags.decision;
    const by = nonBlank(ctx.flags.by, '--by') ?? null;
    const note = nonBlank(ctx.flags.note, '--note') ?? null;

    const { decisionSigner } = await import('../../attest/signer.js');
    const signer = decisionSigner(ctx.env, ctx.cwd, ctx.flags.key);
    const { decideApproval } = await import('../../approvals/decide.js');
    const { row, previous, changed } = await decideApproval(ctx.env, ctx.cwd, id, decision, by, note, signer);
    const { approvalDecideText, fillFields } = await import('../../render/approval.js');
    const fill = row.status === 'approved' ? fillFields(row) : {};
    return {
      json: {
        status: 'ok',
        approval_id: id,
        approval_status: row.status,
        previous_status: previous,
        changed,
        fingerprint: row.fingerprint,
        ...fill,
      },
      text: approvalDecideText(row, previous, changed),
    };
  }
}
