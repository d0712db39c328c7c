/** `handoff contract gc`: remove aged and spent draft files. */
import * as Flags from '@oclif/core/flags';
import { generatedUsage } from '../../cli/usage.js';
import { HandoffCommand } from '../../cli/base-command.js';
import type { CommandContext, CommandResult } from '../../cli/command.js';
import { wholeNumber, type FlagsOf } from '../../cli/flags.js';
import { gcText, sweepDrafts } from '../../retention/gc.js';

export default class ContractGc extends HandoffCommand {
  static override summary = 'Remove aged and spent draft files and abandoned debris';
  static override description =
    'Deletes draft files and debris, never store rows or receipts: drafts older than --max-age-days (aged), drafts whose row is closed and older than --grace-hours (spent); temp files of interrupted saves, evidence temp blobs and spill folders older than 1 hour whose owner process is gone; and blobs no row references, older than --max-age-days, when the store is readable and every referenced blob is present. A draft whose lock is held is kept.';
  static override flags = {
    'max-age-days': wholeNumber('max-age-days', 1, Number.MAX_SAFE_INTEGER, {
      helpValue: 'N',
      description: 'Remove drafts older than N days (integer >= 1, default 7)',
    }),
    'grace-hours': wholeNumber('grace-hours', 0, Number.MAX_SAFE_INTEGER, {
      helpValue: 'N',
      description: 'Keep spent drafts for N hours (integer >= 0, default 24)',
    }),
    'dry-run': Flags.boolean({ description: 'Report what would be removed without deleting' }),
    json: Flags.boolean({ description: 'Print one JSON object' }),
  };
  static override examples = ['handoff contract gc --dry-run', 'handoff contract gc --max-age-days 14 --json'];
  static override usage = generatedUsage(this);

  protected async perform(ctx: CommandContext<FlagsOf<typeof ContractGc>>): Promise<CommandResult> {
    const maxAgeDays = ctx.flags['max-age-days'] ?? 7;
    const graceHours = ctx.flags['grace-hours'] ?? 24;
    const dryRun = ctx.flags['dry-run'] === true;
    const result = await sweepDrafts({ env: ctx.env, cwd: ctx.cwd, maxAgeDays, graceHours, dryRun });
    const { removed, kept, debris, blobs } = result;
    return { json: { status: 'ok', dry_run: dryRun, removed, kept, debris, blobs }, text: gcText(result, dryRun) };
  }
}
