import * as Flags from '@oclif/core/flags';
import { generatedUsage } from '../../cli/usage.js';
import { HandoffCommand } from '../../cli/base-command.js';
import type { CommandContext, CommandResult } from '../../cli/command.js';

export default class EvidenceOrphans extends HandoffCommand {
  static override summary = 'Find blobs no row references';
  static override description =
    'Read-only: lists files below the evidence root that no evidence or receipt row references (kind blob, temp, link,\nother) and rows whose blob is gone. It never deletes anything.';
  static override flags = {
    json: Flags.boolean({ description: 'Print one JSON object' }),
  };
  static override examples = ['handoff evidence orphans', 'handoff evidence orphans --json'];
  static override usage = generatedUsage(this);

  protected async perform(ctx: CommandContext): Promise<CommandResult> {
    const { findOrphans } = await import('../../evidence/orphans.js');
    const r = await findOrphans(ctx.env, ctx.cwd);
    const lines = [
      ...r.orphans.map((o) => o.path),
      ...r.missing.map((m) => `missing: evidence ${m.id} ${m.artifact_path}`),
      `${r.orphans.length} orphan(s), ${r.missing.length} missing blob(s).`,
    ];
    return {
      json: { status: 'ok', count: r.orphans.length, orphans: r.orphans, missing: r.missing },
      text: lines.join('\n'),
    };
  }
}
