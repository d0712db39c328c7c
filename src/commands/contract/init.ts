import * as Flags from '@oclif/core/flags';
import { generatedUsage } from '../../cli/usage.js';
import { HandoffCommand } from '../../cli/base-command.js';
import type { CommandContext, CommandResult } from '../../cli/command.js';
import { JSON_FLAG, type FlagsOf } from '../../cli/flags.js';
import { addressingFrom } from '../../drafts/cli-flags.js';
import { initDraft } from '../../drafts/init.js';

export default class ContractInit extends HandoffCommand {
  static override summary = 'Start a new draft envelope';
  static override description = [
    'Creates a draft holding the initial envelope and prints its ids. Pass --draft-id <draft_id> on every later call.',
    'Without flags a new agent id and draft id are minted; an existing --draft-id is refused (DRAFT_EXISTS).',
    'The workspace (--workspace, else $HANDOFF_WORKSPACE, else the git top-level or folder name made into a slug) is',
    'recorded beside the draft: later verbs on the draft use it whatever the current directory. It also prints a claim',
    'token (claim_token in --json, a claim_token= line on stderr; only its sha256 is kept, beside the draft, and',
    'finalize copies that to the row): contract claim of the finalized contract needs it. init never touches the store.',
  ].join(' ');
  static override flags = {
    'agent-id': Flags.string({ helpValue: 'ID', description: 'Reuse this agent id instead of minting one' }),
    'draft-id': Flags.string({ helpValue: 'ID', description: 'Create the draft under this exact id (must not exist)' }),
    workspace: Flags.string({
      helpValue: 'NAME',
      description: 'The workspace of the draft, a safe slug (default: $HANDOFF_WORKSPACE, else the git top-level name)',
    }),
    json: JSON_FLAG,
  };
  static override examples = [
    'handoff contract init',
    'handoff contract init --json',
    'handoff contract init --workspace payments --json',
  ];
  static override usage = generatedUsage(this);

  protected async perform(ctx: CommandContext<FlagsOf<typeof ContractInit>>): Promise<CommandResult> {
    const flags = addressingFrom(ctx.flags);
    const r = await initDraft(ctx.env, ctx.cwd, { ...flags, workspaceFlag: ctx.flags.workspace });
    // The claim token goes to stderr and --json only: never into the draft, whose envelope the agent reads.
    ctx.notice(`claim_token=${r.claimToken}`);
    return {
      json: {
        status: 'ok',
        draft_id: r.draftId,
        agent_id: r.agentId,
        agent_id_minted: r.agentIdMinted,
        workspace: r.workspace,
        claim_token: r.claimToken,
      },
      text: [
        `OK: draft ${r.draftId} created.`,
        `agent_id: ${r.agentId}`,
        `draft_id: ${r.draftId}`,
        `Pass --draft-id ${r.draftId} on every later call; agent_status.agent_id already holds the agent_id.`,
      ].join('\n'),
    };
  }
}
