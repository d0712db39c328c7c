import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { generatedUsage } from '../../cli/usage.js';
import { HandoffCommand } from '../../cli/base-command.js';
import type { CommandContext, CommandResult } from '../../cli/command.js';
import { str } from '../../evidence/flags.js';
import { checkSlug, workspaceSlug } from '../../evidence/slug.js';

export default class BriefShow extends HandoffCommand {
  static override summary = 'Show one brief';
  static override description =
    'Shows one brief of the workspace: its title, objective, and each acceptance criterion with the evidence recorded for it. Reads only.';
  static override flags = {
    workspace: Flags.string({
      description: 'Workspace slug (default: $HANDOFF_WORKSPACE, git top-level or cwd name)',
      helpValue: 'NAME',
    }),
    json: Flags.boolean({ description: 'Print one JSON object' }),
  };
  static override args = {
    NAME: Args.string({ required: true, description: 'Brief name (safe slug, exact)', ignoreStdin: true }),
  };
  static override examples = ['handoff brief show payments', 'handoff brief show payments --json'];
  static override usage = generatedUsage(this);

  protected async perform(ctx: CommandContext): Promise<CommandResult> {
    const name = checkSlug(ctx.args.NAME ?? '', 'brief name');
    const workspace = workspaceSlug(str(ctx.flags.workspace), ctx.env, ctx.cwd, ctx.notice);
    const { showBrief } = await import('../../evidence/brief-service.js');
    const { briefText } = await import('../../evidence/format.js');
    const r = await showBrief(ctx.env, ctx.cwd, workspace, name);
    return { json: { status: 'ok', ...r }, text: briefText(r) };
  }
}
