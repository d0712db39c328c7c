import * as Flags from '@oclif/core/flags';
import { generatedUsage } from '../../cli/usage.js';
import { HandoffCommand } from '../../cli/base-command.js';
import type { CommandContext, CommandResult } from '../../cli/command.js';
import { usage } from '../../errors.js';
import type { FlagsOf } from '../../cli/flags.js';
import { adapterOf, HARNESSES, harnessChoices } from '../../harnesses/index.js';

export default class HooksInstall extends HandoffCommand {
  static override summary = "Wire the stop gate into a harness's hook configuration";
  static override description =
    "Merges the stop gate into the harness's own config file (Claude Code .claude/settings.json, Codex .codex/hooks.json or " +
    '$CODEX_HOME/hooks.json, Gemini CLI .gemini/settings.json, Copilot CLI .github/hooks/handoff.json, Cursor .cursor/hooks.json, Qwen Code .qwen/settings.json; ' +
    'OpenCode: the plugin the package ships, into .opencode/plugin/). Other hooks, keys and their order are kept; a second ' +
    'install changes no byte; hooks uninstall gives the file back byte for byte when it is as install left it (else takes ' +
    'out only what install added). In a project file the command names handoff through the PATH only (hooks status exits ' +
    '1 when it resolves inside the workspace); at --scope user it names node and handoff by absolute path. It pins ' +
    '--harness, and never writes a secret, ' +
    'a data root or a store URL: the hook reads HANDOFF_HOME and HANDOFF_STORE_URL from its environment. --strict adds ' +
    '--on-store-error block; --dry-run prints the diff and writes nothing. A config that is not valid JSON is refused ' +
    '(HOOK_CONFIG_INVALID) and nothing is written. Codex runs a hook only once it is trusted: for --harness codex, install ' +
    "asks Codex (codex app-server, hooks/list) for the hash of each hook it wrote and trusts exactly those in Codex's " +
    "config.toml, as Codex's own review would (appended, marked, never reordering yours; never a project's trust_level), " +
    "then has Codex confirm it (HOOK_TRUST_FAILED puts config.toml back); --no-trust leaves them to Codex's review.";
  static override flags = {
    harness: Flags.option({ options: HARNESSES })({
      required: true,
      helpValue: harnessChoices(HARNESSES),
      description: 'The harness to wire',
    }),
    scope: Flags.option({ options: ['project', 'user'] as const, default: 'project' as const })({
      helpValue: 'project|user',
      description: "project (default): the project's config; user: your own",
    }),
    strict: Flags.boolean({ description: 'A store or data-root problem blocks the stop (--on-store-error block)' }),
    matcher: Flags.string({
      helpValue: 'REGEX',
      description: 'Claude Code: the subagent types that carry contracts (default implementer|verifier|investigator)',
    }),
    approvals: Flags.boolean({
      description:
        'Also wire the pre-tool approval gate (handoff approval gate) beside the stop gate, where the harness has a pre-tool hook (all but OpenCode)',
    }),
    'no-trust': Flags.boolean({
      description: "Codex: write the hooks but leave trusting them to Codex's own review (/hooks)",
    }),
    'dry-run': Flags.boolean({ description: 'Print the diff; write nothing' }),
    json: Flags.boolean({ description: 'Print one JSON object' }),
  };
  static override examples = [
    'handoff hooks install --harness claude --dry-run',
    'handoff hooks install --harness gemini --strict --dry-run --json',
  ];
  static override usage = generatedUsage(this);

  protected async perform(ctx: CommandContext<FlagsOf<typeof HooksInstall>>): Promise<CommandResult> {
    const { harness, scope } = ctx.flags;
    const matcher = ctx.flags.matcher;
    if (matcher !== undefined && matcher.trim() === '') throw usage('--matcher must be non-blank');
    const trusted = adapterOf(harness).trust;
    if (ctx.flags['no-trust'] === true && trusted === undefined)
      throw usage(
        `--no-trust is for a harness that trusts hooks (${HARNESSES.filter((h) => adapterOf(h).trust !== undefined).join(', ')})`,
      );
    const { installHooks, planInstall } = await import('../../hooks/service.js');
    const req = {
      harness,
      scope,
      dryRun: ctx.flags['dry-run'] === true,
      env: ctx.env,
      cwd: ctx.cwd,
      script: ctx.script,
    };
    const o = { strict: ctx.flags.strict === true, matcher, approvals: ctx.flags.approvals === true };
    const plan = trusted === undefined ? undefined : planInstall(req, o);
    const r = installHooks(req, o);
    const text = [
      r.diff ??
        `${r.action === 'unchanged' ? 'Already installed' : r.dry_run ? 'Would write' : 'Installed'}: ${r.harness} (${r.scope}) in ${r.path}`,
    ];
    if (plan === undefined) return { json: { status: 'ok', ...r }, text: text.join('\n') };
    const t = await trusted!();
    const trust =
      ctx.flags['no-trust'] === true
        ? t.leftToReview(ctx.env)
        : await t.install({ ...req, hooksPath: plan.path, hooksText: plan.after, commands: plan.commands });
    if (trust.diff !== undefined) text.push(trust.diff);
    if (trust.status === 'trusted') text.push(`Trusted in Codex: ${trust.hooks.map((h) => h.key).join(', ')}`);
    else if (trust.status === 'left_to_review')
      ctx.notice(
        "hooks install: the hooks are left to Codex's review: Codex runs them only once you trust them (/hooks)",
      );
    else if (trust.status !== 'would_write')
      ctx.notice(`hooks install: Codex will not run the gate yet: ${trust.reason ?? trust.status}`);
    return { json: { status: 'ok', ...r, trust }, text: text.join('\n') };
  }
}
