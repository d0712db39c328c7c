import * as Flags from '@oclif/core/flags';
import { generatedUsage } from '../../cli/usage.js';
import { HandoffCommand } from '../../cli/base-command.js';
import type { CommandContext, CommandResult } from '../../cli/command.js';
import { ADDRESSING_FLAGS, JSON_FLAG, TIMEOUT_FLAG, WORKSPACE_FLAG } from '../../cli/flags.js';
import { evidenceRunRequest } from '../../receipts/options.js';

export default class EvidenceRun extends HandoffCommand {
  static override summary = 'Run a command and record an immutable receipt';
  static override description = [
    'Runs CMD itself (argv, no shell; --shell runs one string with /bin/sh -c), stdin from /dev/null, in its own',
    'process group. Its stdout and stderr are passed through (both to stderr under --json) and recorded with their',
    "sha256 in an immutable receipt R-… of the contract's live tip; the command string and a summary line are then",
    'appended to the draft (evidence_report.commands_run / key_outputs). Outcome: exit 0 pass, exit 1 fail, anything',
    'else unproven. Cite the id in evidence_report.verification.receipt; finalize checks it.\n\n' +
      "Exit status: once a receipt is recorded, the command's own status (124 timeout, 128+n signal n, 127 not",
    'started; 4 DRAFT_APPEND_FAILED when the draft append failed). Before that, the table below.',
  ].join(' ');
  static override passthrough = true;
  static override flags = {
    ...ADDRESSING_FLAGS,
    brief: Flags.string({
      helpValue: 'NAME',
      description: 'Also record each non-empty output stream as evidence of this brief (with --ac)',
    }),
    ac: Flags.string({
      helpValue: 'AC_ID',
      description: 'The acceptance criterion of --brief the output is evidence for',
    }),
    timeout: TIMEOUT_FLAG,
    cwd: Flags.string({
      helpValue: 'DIR',
      description: 'Run the command in this existing directory (default: the current one)',
    }),
    shell: Flags.boolean({ description: 'Run the one argument after -- with /bin/sh -c' }),
    workspace: WORKSPACE_FLAG,
    json: JSON_FLAG,
  };
  static override examples = [
    'handoff evidence run --draft-id a0123456789abcdef.0123456789ab -- npm test',
    'handoff evidence run --draft-id a0123456789abcdef.0123456789ab --brief payments --ac AC-1 --shell -- "npm test 2>&1 | tail -n 20"',
  ];
  static override usage = generatedUsage(this);

  protected async perform(ctx: CommandContext): Promise<CommandResult> {
    // Step 1: every flag and id before any file or store access.
    const request = evidenceRunRequest(ctx.flags, ctx.rest, ctx.env, ctx.cwd);
    const { withAmbiguityRendering } = await import('../../render/ambiguity.js');
    const { withLineDiscipline } = await import('../../receipts/sinks.js');
    const { evidenceRun } = await import('../../receipts/run-service.js');
    return withLineDiscipline(ctx.passthrough, ctx.json, ctx.notice, (sinks, notice) =>
      withAmbiguityRendering(() => evidenceRun({ ...request, sinks, notice })),
    );
  }
}
