import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { generatedUsage } from '../../cli/usage.js';
import { HandoffCommand } from '../../cli/base-command.js';
import type { CommandContext, CommandResult } from '../../cli/command.js';
import { usage } from '../../errors.js';
import { blankToNull, parseAcFlags, str } from '../../evidence/flags.js';
import { checkSlug, workspaceSlug } from '../../evidence/slug.js';

export default class BriefAdd extends HandoffCommand {
  static override summary = 'Create or extend a brief with acceptance criteria';
  static override description =
    'NAME and each AC_ID are safe slugs (1-64 of A-Z a-z 0-9 . _ -, first one alphanumeric, no ".."); ids are unique ignoring case. ' +
    'With --extend the brief must exist and the given criteria are appended (no --title/--objective).';
  static override flags = {
    title: Flags.string({ description: 'Title (blank = none)', helpValue: 'TEXT' }),
    objective: Flags.string({ description: 'Objective (blank = none)', helpValue: 'TEXT' }),
    ac: Flags.string({
      multiple: true,
      description: 'Acceptance criterion, repeatable, in order',
      helpValue: 'AC_ID=DESCRIPTION',
    }),
    extend: Flags.boolean({ description: 'Append criteria to an existing brief' }),
    workspace: Flags.string({
      description: 'Workspace slug (default: $HANDOFF_WORKSPACE, git top-level or cwd name)',
      helpValue: 'NAME',
    }),
    json: Flags.boolean({ description: 'Print one JSON object' }),
  };
  static override args = {
    NAME: Args.string({ required: true, description: 'Brief name (safe slug)', ignoreStdin: true }),
  };
  static override examples = [
    'handoff brief add payments --title "Payments hardening" --ac "AC-1=Duplicate POST returns the first response"',
    'handoff brief add payments --extend --ac "AC-2=Refunds are idempotent too"',
  ];
  static override usage = generatedUsage(this);

  protected async perform(ctx: CommandContext): Promise<CommandResult> {
    const name = checkSlug(ctx.args.NAME ?? '', 'brief name');
    const acs = parseAcFlags((ctx.flags.ac as string[] | undefined) ?? []);
    const extend = ctx.flags.extend === true;
    const title = str(ctx.flags.title);
    const objective = str(ctx.flags.objective);
    if (extend && acs.length === 0) throw usage('--extend needs at least one --ac AC_ID=DESCRIPTION');
    if (extend && (title !== undefined || objective !== undefined))
      throw usage('--title and --objective cannot be used with --extend');
    const workspace = workspaceSlug(str(ctx.flags.workspace), ctx.env, ctx.cwd, ctx.notice);

    const { addBrief } = await import('../../evidence/brief-service.js');
    const r = await addBrief(ctx.env, ctx.cwd, {
      workspace,
      name,
      title: blankToNull(title),
      objective: blankToNull(objective),
      acs,
      extend,
    });
    const text = r.created
      ? `Brief ${r.brief.name} (id=${r.brief.id}) created with ${r.acceptance_criteria.length} acceptance criteria.`
      : `Brief ${r.brief.name} (id=${r.brief.id}) extended: ${r.added.join(', ')}.`;
    return { json: { status: 'ok', ...r }, text };
  }
}
