import * as Flags from '@oclif/core/flags';
import { generatedUsage } from '../../cli/usage.js';
import { HandoffCommand } from '../../cli/base-command.js';
import type { CommandContext, CommandResult } from '../../cli/command.js';
import { memoryPage, pageFlags, pageFooter, pageJson, pageRequest } from '../../cli/page.js';
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
    ...pageFlags('briefs'),
    json: Flags.boolean({ description: 'Print one JSON object' }),
  };
  static override examples = ['handoff brief list', 'handoff brief list --workspace payments --json'];
  static override usage = generatedUsage(this);

  protected async perform(ctx: CommandContext): Promise<CommandResult> {
    const req = pageRequest(ctx.flags);
    const workspace = workspaceSlug(str(ctx.flags.workspace), ctx.env, ctx.cwd, ctx.notice);
    const { listBriefsOf } = await import('../../evidence/brief-service.js');
    const { table } = await import('../../evidence/format.js');
    const all = await listBriefsOf(ctx.env, ctx.cwd, workspace);
    const page = memoryPage('brief', req, all);
    const total = req.total ? all.length : undefined;
    const briefs = page.rows;
    const text =
      briefs.length === 0
        ? `No briefs in workspace ${workspace}.${total === undefined ? '' : ` ${pageFooter(page, total)}`}`
        : `${table(
            ['id', 'name', 'acs', 'evidence', 'created_at', 'title'],
            briefs.map((b) => [b.id, b.name, b.ac_count, b.evidence_count, b.created_at, b.title]),
          )}\n${pageFooter(page, total)}`;
    return { json: { status: 'ok', ...pageJson(page, total), briefs }, text };
  }
}
