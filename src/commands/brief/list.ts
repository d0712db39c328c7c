import * as Flags from '@oclif/core/flags';
import { generatedUsage } from '../../cli/usage.js';
import { HandoffCommand } from '../../cli/base-command.js';
import type { CommandContext, CommandResult } from '../../cli/command.js';
import { str } from '../../evidence/flags.js';
import { workspaceSlug } from '../../evidence/slug.js';

export default class BriefList extends HandoffCommand {
  static override summary = 'List briefs of the workspace';
  static override description =
    'Lists the briefs of the workspace with their acceptance criteria counts and evidence counts. Reads only.';
  static override flags = {
    workspace: Flags.string({
      description: 'Workspace slug (default: $HANDOFF_WORKSPACE, git top-level or cwd name)',
      helpValue: 'NAME',
    }),
    json: Flags.boolean({ description: 'Print one JSON object' }),
  };
  static override examples = ['handoff brief list', 'handoff brief list --workspace payments --json'];
  static override usage = generatedUsage(this);

  protected async perform(ctx: CommandContext): Promise<CommandResult> {
    const workspace = workspaceSlug(str(ctx.flags.workspace), ctx.env, ctx.cwd, ctx.notice);
    const { listBriefsOf } = await import('../../evidence/brief-service.js');
    const { table } = await import('../../evidence/format.js');
    const briefs = await listBriefsOf(ctx.env, ctx.cwd, workspace);
    const text =
      briefs.length === 0
        ? `No briefs in workspace ${workspace}.`
        : `${table(
            ['id', 'name', 'acs', 'evidence', 'created_at', 'title'],
            briefs.map((b) => [b.id, b.name, b.ac_count, b.evidence_count, b.created_at, b.title]),
          )}\n${briefs.length} brief(s).`;
    return { json: { status: 'ok', count: briefs.length, briefs }, text };
  }
}
