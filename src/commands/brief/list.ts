import { defineCommand } from '../../cli/command.js';
import { str } from '../../evidence/flags.js';
import { workspaceSlug } from '../../evidence/slug.js';

export default defineCommand({
  id: 'brief list',
  summary: 'List briefs of the workspace',
  usage: 'handoff brief list [--workspace NAME] [--json]',
  flags: {
    workspace: { type: 'string', description: 'Workspace slug (default: $HANDOFF_WORKSPACE, git top-level or cwd name)', valueName: 'NAME' },
    json: { type: 'boolean', description: 'Print one JSON object' },
  },
  async run(ctx) {
    const workspace = workspaceSlug(str(ctx.flags.workspace), ctx.env, ctx.cwd);
    const { listBriefsOf } = await import('../../evidence/brief-service.js');
    const { table } = await import('../../evidence/format.js');
    const briefs = listBriefsOf(ctx.env, ctx.cwd, workspace);
    const text =
      briefs.length === 0
        ? `No briefs in workspace ${workspace}.`
        : `${table(
            ['id', 'name', 'acs', 'evidence', 'created_at', 'title'],
            briefs.map((b) => [b.id, b.name, b.ac_count, b.evidence_count, b.created_at, b.title]),
          )}\n${briefs.length} brief(s).`;
    return { json: { status: 'ok', count: briefs.length, briefs }, text };
  },
});
