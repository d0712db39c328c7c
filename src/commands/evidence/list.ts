import * as Flags from '@oclif/core/flags';
import { HandoffCommand } from '../../cli/base-command.js';
import type { CommandContext, CommandResult } from '../../cli/command.js';
import { usage } from '../../errors.js';
import { str } from '../../evidence/flags.js';
import { checkSlug, workspaceSlug } from '../../evidence/slug.js';

const USAGE = 'handoff evidence list --brief NAME [--ac AC_ID] [--workspace NAME] [--json]';

export default class EvidenceList extends HandoffCommand {
  static override summary = 'List evidence of a brief';
  static override usage = USAGE.replace(/^handoff /, '');
  static override description =
    'Lists the evidence rows of a brief, optionally of one acceptance criterion: type, size, sha256, where the payload is stored, and which contract and agent deposited it. Reads only.';
  static override flags = {
    brief: Flags.string({ description: 'Brief name (safe slug)', helpValue: 'NAME' }),
    ac: Flags.string({ description: 'Only this acceptance criterion (exact)', helpValue: 'AC_ID' }),
    workspace: Flags.string({ description: 'Workspace slug (default: $HANDOFF_WORKSPACE, git top-level or cwd name)', helpValue: 'NAME' }),
    json: Flags.boolean({ description: 'Print one JSON object' }),
  };
  static override examples = [
    'handoff evidence list --brief payments',
    'handoff evidence list --brief payments --ac AC-1 --json',
  ];

  protected async perform(ctx: CommandContext): Promise<CommandResult> {
    const briefFlag = str(ctx.flags.brief);
    if (briefFlag === undefined) throw usage(`--brief is required; see --help`);
    const brief = checkSlug(briefFlag, '--brief');
    const acFlag = str(ctx.flags.ac);
    const acId = acFlag === undefined ? undefined : checkSlug(acFlag, '--ac');
    const workspace = workspaceSlug(str(ctx.flags.workspace), ctx.env, ctx.cwd);
    const { listEvidenceOf } = await import('../../evidence/read.js');
    const { evidenceTable } = await import('../../evidence/format.js');
    const r = await listEvidenceOf(ctx.env, ctx.cwd, workspace, brief, acId);
    const n = r.evidence.length;
    const text = n === 0 ? '0 evidence row(s).' : `${evidenceTable(r.evidence)}\n${n} evidence row(s).`;
    return { json: { status: 'ok', count: n, brief: r.brief.name, brief_id: r.brief.id, evidence: r.evidence }, text };
  }
}
