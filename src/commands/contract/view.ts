import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { generatedUsage } from '../../cli/usage.js';
import { HandoffCommand } from '../../cli/base-command.js';
import type { CommandContext, CommandResult } from '../../cli/command.js';
import { ADDRESSING_FLAGS, JSON_FLAG, type FlagsOf } from '../../cli/flags.js';
import { addressingFrom } from '../../drafts/cli-flags.js';
import { parseFieldPath } from '../../drafts/value.js';
import { resolvedJson } from '../../drafts/resolve.js';
import { viewDraft } from '../../drafts/view.js';
import { usage } from '../../errors.js';
import { withAmbiguityRendering } from '../../render/ambiguity.js';
import { adoptedNotice } from '../../render/notices.js';

export default class ContractView extends HandoffCommand {
  static override summary = 'Show the draft or one field of it';
  static override description = [
    'Shows exactly the addressed draft as stored (no chain following, no validation). A dispatched contract without',
    'a draft file is materialized from its row and saved ("adopted"); a closed row without a draft is shown read-only',
    'from the store. FIELD (a dotted path, as for `set`; `--field PATH` is the same) prints one value: objects only',
    'are walked, lists are never indexed. Without --draft-id or --agent-id it shows the newest draft born in the',
    'current workspace and says so on stderr.',
  ].join(' ');
  static override flags = {
    field: Flags.string({ helpValue: 'PATH', description: 'The same as the FIELD argument (kept for older scripts)' }),
    ...ADDRESSING_FLAGS,
    json: JSON_FLAG,
  };
  static override args = {
    FIELD: Args.string({
      required: false,
      description: 'Dotted path of the one value to print, e.g. agent_status',
      ignoreStdin: true,
    }),
  };
  static override examples = [
    'handoff contract view --draft-id a0123456789abcdef.0123456789ab',
    'handoff contract view agent_status --draft-id a0123456789abcdef.0123456789ab --json',
  ];
  static override usage = generatedUsage(this);

  protected async perform(ctx: CommandContext<FlagsOf<typeof ContractView>>): Promise<CommandResult> {
    const addressing = addressingFrom(ctx.flags);
    const field = fieldOf(ctx.args.FIELD, ctx.flags.field);
    const segments = field === undefined ? undefined : parseFieldPath(field);
    return withAmbiguityRendering(async () => {
      const v = await viewDraft(ctx.env, ctx.cwd, addressing, segments, ctx.notice);
      const resolved = resolvedJson(v.resolved);
      if (v.adopted) ctx.notice(adoptedNotice(v.draftId));
      if (v.field !== undefined) {
        const { value } = v.field;
        return {
          json: { status: 'ok', draft_id: v.draftId, field, value, ...resolved },
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
      return { json: { status: 'ok', ...shown, ...resolved }, text: JSON.stringify(shown, null, 2) };
    });
  }
}

/** FIELD and `--field` name the same thing: either one, or both when equal (USAGE, exit 2, when they differ). */
function fieldOf(positional: string | undefined, flag: string | undefined): string | undefined {
  if (positional !== undefined && flag !== undefined && positional !== flag) {
    throw usage(`FIELD ${JSON.stringify(positional)} and --field ${JSON.stringify(flag)} differ; give the path once`);
  }
  return positional ?? flag;
}
