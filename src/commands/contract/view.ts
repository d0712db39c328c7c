import * as Flags from '@oclif/core/flags';
import { HandoffCommand } from '../../cli/base-command.js';
import type { CommandContext, CommandResult } from '../../cli/command.js';
import { ADDRESSING_FLAGS, JSON_FLAG } from '../../cli/flags.js';
import { addressingFrom, stringFlag } from '../../drafts/cli-flags.js';
import { parseFieldPath } from '../../drafts/value.js';
import { viewDraft } from '../../drafts/view.js';
import { withAmbiguityRendering } from '../../render/ambiguity.js';
import { adoptedNotice } from '../../render/notices.js';

export default class ContractView extends HandoffCommand {
  static override summary = 'Show the draft or one field of it';
  static override usage = 'contract view [--field PATH] [--draft-id ID] [--agent-id ID] [--json]';
  static override description = [
    'Shows exactly the addressed draft as stored (no chain following, no validation). A dispatched contract without',
    'a draft file is materialized from its row and saved ("adopted"); a closed row without a draft is shown read-only',
    'from the store. --field prints one value (objects only are walked; lists are never indexed).',
  ].join(' ');
  static override flags = {
    field: Flags.string({ helpValue: 'PATH', description: 'Print only the value at this dotted path' }),
    ...ADDRESSING_FLAGS,
    json: JSON_FLAG,
  };
  static override examples = [
    'handoff contract view --draft-id a0123456789abcdef.0123456789ab',
    'handoff contract view --field agent_status --draft-id a0123456789abcdef.0123456789ab --json',
  ];

  protected async perform(ctx: CommandContext): Promise<CommandResult> {
    const addressing = addressingFrom(ctx.flags);
    const field = stringFlag(ctx.flags, 'field');
    const segments = field === undefined ? undefined : parseFieldPath(field);
    return withAmbiguityRendering(async () => {
      const v = await viewDraft(ctx.env, ctx.cwd, addressing, segments);
      if (v.adopted) ctx.notice(adoptedNotice(v.draftId));
      if (v.field !== undefined) {
        const { value } = v.field;
        return {
          json: { status: 'ok', draft_id: v.draftId, field, value },
          text: JSON.stringify(value, null, 2),
        };
      }
      const shown: Record<string, unknown> = {
        draft_id: v.draftId,
        envelope_source: v.envelopeSource,
        ...(v.adopted ? { adopted: true } : {}),
        ...(v.row ?? {}),
        envelope: v.envelope,
      };
      return { json: { status: 'ok', ...shown }, text: JSON.stringify(shown, null, 2) };
    });
  }
}
