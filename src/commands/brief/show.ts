import { defineCommand } from '../../cli/command.js';
import { str } from '../../evidence/flags.js';
import { checkSlug, workspaceSlug } from '../../evidence/slug.js';

export default defineCommand({
  id: 'brief show',
  summary: 'Show one brief',
  usage: 'handoff brief show NAME [--workspace NAME] [--json]',
  flags: {
    workspace: { type: 'string', description: 'Workspace slug (default: $HANDOFF_WORKSPACE, git top-level or cwd name)', valueName: 'NAME' },
    json: { type: 'boolean', description: 'Print one JSON object' },
  },
  args: [{ name: 'NAME', required: true, description: 'Brief name (safe slug, exact)' }],
  async run(ctx) {
    const name = checkSlug(ctx.args.NAME ?? '', 'brief name');
    const workspace = workspaceSlug(str(ctx.flags.workspace), ctx.env, ctx.cwd);
    const { showBrief } = await import('../../evidence/brief-service.js');
    const { briefText } = await import('../../evidence/format.js');
    const r = showBrief(ctx.env, ctx.cwd, workspace, name);
    return { json: { status: 'ok', ...r }, text: briefText(r) };
  },
});
