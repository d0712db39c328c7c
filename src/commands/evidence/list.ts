import { defineCommand } from '../../cli/command.js';
import { usage } from '../../errors.js';
import { str } from '../../evidence/flags.js';
import { checkSlug, workspaceSlug } from '../../evidence/slug.js';

const USAGE = 'handoff evidence list --brief NAME [--ac AC_ID] [--workspace NAME] [--json]';

export default defineCommand({
  id: 'evidence list',
  summary: 'List evidence of a brief',
  usage: USAGE,
  flags: {
    brief: { type: 'string', description: 'Brief name (safe slug)', valueName: 'NAME' },
    ac: { type: 'string', description: 'Only this acceptance criterion (exact)', valueName: 'AC_ID' },
    workspace: { type: 'string', description: 'Workspace slug (default: $HANDOFF_WORKSPACE, git top-level or cwd name)', valueName: 'NAME' },
    json: { type: 'boolean', description: 'Print one JSON object' },
  },
  async run(ctx) {
    const briefFlag = str(ctx.flags.brief);
    if (briefFlag === undefined) throw usage(`--brief is required; see --help`);
    const brief = checkSlug(briefFlag, '--brief');
    const acFlag = str(ctx.flags.ac);
    const acId = acFlag === undefined ? undefined : checkSlug(acFlag, '--ac');
    const workspace = workspaceSlug(str(ctx.flags.workspace), ctx.env, ctx.cwd);
    const { listEvidenceOf } = await import('../../evidence/read.js');
    const { evidenceTable } = await import('../../evidence/format.js');
    const r = listEvidenceOf(ctx.env, ctx.cwd, workspace, brief, acId);
    const n = r.evidence.length;
    const text = n === 0 ? '0 evidence row(s).' : `${evidenceTable(r.evidence)}\n${n} evidence row(s).`;
    return { json: { status: 'ok', count: n, brief: r.brief.name, brief_id: r.brief.id, evidence: r.evidence }, text };
  },
});
