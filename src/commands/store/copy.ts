/** `handoff store copy --to <url>`: move the SQLite store into an empty PostgreSQL store. */
import * as Flags from '@oclif/core/flags';
import { generatedUsage } from '../../cli/usage.js';
import { HandoffCommand } from '../../cli/base-command.js';
import type { CommandContext, CommandResult } from '../../cli/command.js';
import { usage } from '../../errors.js';

export default class StoreCopy extends HandoffCommand {
  static override summary = 'Copy the SQLite store into an empty PostgreSQL store';
  static override description =
    "Copies the SQLite store of the current data root (HANDOFF_HOME / HANDOFF_DB) into the empty PostgreSQL database at URL: every table verbatim, ids preserved (sequences reset after), receipts unchanged, and every blob under the data root into the store's blob table (an evidence row's file path becomes its blob:sha256: reference). Then row counts, table digests and blob hashes are verified before the copy commits. A target that already holds rows is refused (STORE_COPY_TARGET_NOT_EMPTY) and nothing is written. The SQLite store is left as it was; set HANDOFF_STORE_URL to the URL to use the copy.";
  static override flags = {
    to: Flags.string({
      description: 'The PostgreSQL store to fill: postgres://user:password@host:port/database',
      helpValue: 'URL',
    }),
    json: Flags.boolean({ description: 'Print one JSON object' }),
  };
  static override examples = [
    'handoff store copy --to postgres://handoff:secret@db.internal:5432/handoff',
    'handoff store copy --to postgres://handoff@127.0.0.1:5432/handoff --json',
  ];
  static override usage = generatedUsage(this);

  protected async perform(ctx: CommandContext): Promise<CommandResult> {
    const to = typeof ctx.flags.to === 'string' ? ctx.flags.to.trim() : undefined;
    if (to === undefined || to === '') throw usage('--to URL is required (a postgres:// URL of an empty database)');
    const { copyStore } = await import('../../store-copy/service.js');
    const r = await copyStore(ctx.env, ctx.cwd, to);
    const lines = [
      ...r.tables.map((t) => `${t.name}: ${t.rows} row(s)`),
      `blobs: ${r.blobs.count} (${r.blobs.bytes} bytes); evidence paths rewritten to blob references: ${r.rewritten.evidence_artifact_path}`,
      `Copied ${r.from} to ${r.to} (schema version ${r.version}); counts, digests and blob hashes verified.`,
    ];
    return { json: { status: 'ok', ...r }, text: lines.join('\n') };
  }
}
