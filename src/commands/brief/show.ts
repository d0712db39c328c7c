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
    const r = showBrief(ctx.env, ctx.cwd, workspace, name);
    const b = r.brief;
    const lines = [`Brief ${b.name} (id=${b.id}, workspace=${b.workspace}, created ${b.created_at})`];
    if (b.title !== null) lines.push(`Title: ${b.title}`);
    if (b.objective !== null) lines.push(`Objective: ${b.objective}`);
    if (r.acceptance_criteria.length === 0) lines.push('No acceptance criteria: evidence is accepted under any ac id.');
    for (const a of r.acceptance_criteria) lines.push(`  ${a.position}. ${a.ac_id} [${a.evidence_count} evidence] ${a.description}`);
    for (const u of r.undeclared_ac_evidence) lines.push(`  (undeclared) ${u.ac_id} [${u.evidence_count} evidence]`);
    return { json: { status: 'ok', ...r }, text: lines.join('\n') };
  },
});
