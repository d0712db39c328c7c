import { defineCommand } from '../../cli/command.js';

export default defineCommand({
  id: 'evidence orphans',
  summary: 'Find blobs no row references',
  usage: 'handoff evidence orphans [--json]',
  description: 'Read-only: lists files below the evidence root that no evidence or receipt row references (kind blob, temp, link,\nother) and rows whose blob is gone. It never deletes anything.',
  flags: { json: { type: 'boolean', description: 'Print one JSON object' } },
  async run(ctx) {
    const { findOrphans } = await import('../../evidence/orphans.js');
    const r = findOrphans(ctx.env, ctx.cwd);
    const lines = [
      ...r.orphans.map((o) => o.path),
      ...r.missing.map((m) => `missing: evidence ${m.id} ${m.artifact_path}`),
      `${r.orphans.length} orphan(s), ${r.missing.length} missing blob(s).`,
    ];
    return { json: { status: 'ok', count: r.orphans.length, orphans: r.orphans, missing: r.missing }, text: lines.join('\n') };
  },
});
