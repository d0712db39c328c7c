import * as Flags from '@oclif/core/flags';
import { generatedUsage } from '../../cli/usage.js';
import { HandoffCommand } from '../../cli/base-command.js';
import type { CommandContext, CommandResult } from '../../cli/command.js';
import type { FlagsOf } from '../../cli/flags.js';
import { adapterOf, HARNESSES, harnessChoices } from '../../harnesses/index.js';

export default class HooksUninstall extends HandoffCommand {
  static override summary = "Take the stop gate out of a harness's hook configuration";
  static override description =
    'Removes the stop gate hooks hooks install added (any command that runs handoff contract gate) from the harness config, ' +
    'and the groups and lists only they held; everything else stays as it was. A file left with nothing of its own (and the ' +
    'OpenCode plugin) is removed. For Codex it also takes out of config.toml the hook trust hooks install wrote for that ' +
    'file, and nothing else. --dry-run prints the diff.';
  static override flags = {
    harness: Flags.option({ options: HARNESSES })({
      required: true,
      helpValue: harnessChoices(HARNESSES),
      description: 'The harness to unwire',
    }),
    scope: Flags.option({ options: ['project', 'user'] as const, default: 'project' as const })({
      helpValue: 'project|user',
      description: "project (default): the project's config; user: your own",
    }),
    'dry-run': Flags.boolean({ description: 'Print the diff; write nothing' }),
    json: Flags.boolean({ description: 'Print one JSON object' }),
  };
  static override examples = ['handoff hooks uninstall --harness claude --dry-run'];
  static override usage = generatedUsage(this);

  protected async perform(ctx: CommandContext<FlagsOf<typeof HooksUninstall>>): Promise<CommandResult> {
    const { harness, scope } = ctx.flags;
    const { uninstallHooks } = await import('../../hooks/service.js');
    const r = uninstallHooks({
      harness,
      scope,
      dryRun: ctx.flags['dry-run'] === true,
      env: ctx.env,
      cwd: ctx.cwd,
      script: ctx.script,
    });
    const text =
      r.diff ??
      `${r.action === 'removed' || r.action === 'updated' ? (r.dry_run ? 'Would remove' : 'Removed') : 'Not installed'}: ${r.harness} (${r.scope}) in ${r.path}`;
    const trusted = adapterOf(harness).trust;
    if (trusted === undefined) return { json: { status: 'ok', ...r }, text };
    const trust = (await trusted()).uninstall(ctx.env, r.path, r.dry_run);
    const lines = [text, ...(trust.diff !== undefined ? [trust.diff] : [])];
    if (trust.status === 'removed' && trust.diff === undefined) lines.push(`Removed its trust from ${trust.path}`);
    return { json: { status: 'ok', ...r, trust }, text: lines.join('\n') };
  }
}
