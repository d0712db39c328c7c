import * as Flags from '@oclif/core/flags';
import { generatedUsage } from '../../cli/usage.js';
import { HandoffCommand } from '../../cli/base-command.js';
import type { CommandContext, CommandResult } from '../../cli/command.js';
import { contractIdFrom } from '../../drafts/cli-flags.js';
import type { FlagsOf } from '../../cli/flags.js';
import { checkHarnessId } from '../../dispatch/options.js';
import { CLAIM_TOKEN_ENV } from '../../dispatch/claim-token.js';

export default class ContractClaim extends HandoffCommand {
  static override summary = 'Tie a harness run id to a contract';
  static override description =
    "Sets the contract chain's live tip harness_id (set-once) so the stop gate finds the contract from the hook " +
    "input (a Claude Code subagent's agent_id, or a session's session_id). Allowed in every state. A contract that dispatch or init gave a claim token is claimed only with " +
    'that token (--claim-token, or HANDOFF_CLAIM_TOKEN so it need not appear in a process list). Never creates the store.';
  static override oneOf = [['draft-id', 'contract-id']];
  static override flags = {
    'harness-id': Flags.string({
      required: true,
      helpValue: 'HID',
      description: 'The harness run id (^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$)',
    }),
    'draft-id': Flags.string({ helpValue: 'ID', description: 'The contract id (any id of its chain)' }),
    'contract-id': Flags.string({ exclusive: ['draft-id'], helpValue: 'ID', description: 'Same as --draft-id' }),
    'claim-token': Flags.string({
      helpValue: 'TOKEN',
      description:
        'The claim token dispatch or init printed (or HANDOFF_CLAIM_TOKEN); needed when the contract has one',
    }),
    json: Flags.boolean({ description: 'Print one JSON object on stdout' }),
  };
  static override examples = [
    'handoff contract claim --draft-id a0123456789abcdef.0123456789ab --harness-id session-42',
  ];
  static override usage = generatedUsage(this);

  protected async perform(ctx: CommandContext<FlagsOf<typeof ContractClaim>>): Promise<CommandResult> {
    const hid = ctx.flags['harness-id'];
    const id = contractIdFrom(ctx.flags, 'pass exactly one of --draft-id and --contract-id');
    checkHarnessId(hid);
    const { claim } = await import('../../dispatch/claim.js');
    const token = ctx.flags['claim-token'] ?? ctx.env[CLAIM_TOKEN_ENV];
    const r = await claim(ctx.env, ctx.cwd, id, hid, token === '' ? undefined : token);
    return {
      json: {
        status: 'ok',
        contract_id: r.tip.contract_id,
        handoff_id: r.tip.id,
        harness_id: r.harnessId,
        changed: r.changed,
      },
      text: r.changed
        ? `OK: contract ${r.tip.contract_id} (handoff_id=${r.tip.id}) claimed by harness id ${r.harnessId}.`
        : `OK: contract ${r.tip.contract_id} (handoff_id=${r.tip.id}) already carries harness id ${r.harnessId}; no-op.`,
    };
  }
}
