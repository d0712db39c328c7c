import { defineCommand } from '../../cli/command.js';
import { ADDRESSING_FLAGS, addressingFrom, JSON_FLAG } from '../../drafts/cli-flags.js';
import { briefFlags, commandArgv, runCwd, timeoutMs, TIMEOUT_FLAG, WORKSPACE_FLAG, workspaceFlag } from '../../receipts/options.js';

export default defineCommand({
  id: 'evidence run',
  summary: 'Run a command and record an immutable receipt',
  usage:
    'handoff evidence run [--draft-id ID | --agent-id ID] [--brief NAME --ac AC_ID] [--timeout SECONDS] [--cwd DIR] [--shell] [--workspace NAME] [--json] -- CMD [ARG ...]',
  description: [
    'Runs CMD itself (argv, no shell; --shell runs one string with /bin/sh -c), stdin from /dev/null, in its own',
    'process group. Its stdout and stderr are passed through (both to stderr under --json) and recorded with their',
    "sha256 in an immutable receipt R-… of the contract's live tip; the command string and a summary line are then",
    'appended to the draft (evidence_report.commands_run / key_outputs). Outcome: exit 0 pass, exit 1 fail, anything',
    'else unproven. Cite the id in evidence_report.verification.receipt; finalize checks it.',
    '',
    "Exit status: once a receipt is recorded, the command's own status (124 timeout, 128+n signal n, 127 not",
    'started; 4 DRAFT_APPEND_FAILED when the draft append failed). Before that, the table below.',
  ].join('\n'),
  passthrough: true,
  flags: {
    ...ADDRESSING_FLAGS,
    brief: { type: 'string', valueName: 'NAME', description: 'Also record each non-empty output stream as evidence of this brief (with --ac)' },
    ac: { type: 'string', valueName: 'AC_ID', description: 'The acceptance criterion of --brief the output is evidence for' },
    timeout: TIMEOUT_FLAG,
    cwd: { type: 'string', valueName: 'DIR', description: 'Run the command in this existing directory (default: the current one)' },
    shell: { type: 'boolean', description: 'Run the one argument after -- with /bin/sh -c' },
    workspace: WORKSPACE_FLAG,
    json: JSON_FLAG,
  },
  async run(ctx) {
    // Step 1: every flag and id before any file or store access.
    const addressing = addressingFrom(ctx.flags);
    const shell = ctx.flags.shell === true;
    const argv = commandArgv(ctx.rest, shell);
    const request = {
      env: ctx.env,
      cwd: ctx.cwd,
      addressing,
      argv,
      shell,
      runCwd: runCwd(ctx.flags, ctx.cwd),
      timeoutMs: timeoutMs(ctx.flags),
      workspaceFlag: workspaceFlag(ctx.flags),
      brief: briefFlags(ctx.flags),
    };
    const { withAmbiguityRendering } = await import('../../render/ambiguity.js');
    const { withLineDiscipline } = await import('../../receipts/sinks.js');
    const { evidenceRun } = await import('../../receipts/run-service.js');
    return withLineDiscipline(ctx.json, ctx.notice, (sinks, notice) => withAmbiguityRendering(() => evidenceRun({ ...request, sinks, notice })));
  },
});
