/** `handoff mcp`: the verbs as MCP tools over stdio. A verb without a topic. */
import type { Config } from '@oclif/core/config';
import * as Flags from '@oclif/core/flags';
import { generatedUsage } from '../cli/usage.js';
import { HandoffCommand } from '../cli/base-command.js';
import type { CommandContext, CommandIO, CommandResult } from '../cli/command.js';
import { stdStream } from '../cli/stdio.js';

export default class Mcp extends HandoffCommand {
  static override summary = 'Serve the verbs as MCP tools on stdio';
  static override description = [
    'Starts a Model Context Protocol server on stdin/stdout for harnesses that speak MCP (register it as',
    '`claude mcp add handoff -- handoff mcp`). Its tools are the verbs with typed arguments: contract_init, contract_set,',
    'contract_add, contract_fill, contract_patch, contract_view, contract_validate, contract_finalize, contract_list,',
    'contract_chain, evidence_add, evidence_list, approval_request and approval_list, each calling the same service as',
    'its verb; a value is any JSON value, never guessed at from text. Resources: handoff://schema/envelope and',
    'handoff://drafts/{draft_id}. It reads the same environment as every verb (HANDOFF_HOME, HANDOFF_DB,',
    "HANDOFF_WORKSPACE) and serves until the client closes stdin. A tool input naming a file (evidence_add's",
    "artifact_file, evidence_run's cwd) must lie inside the server's roots: the client's MCP roots, else the directory",
    'the server runs in, plus each --allow-path DIR; anything else is PATH_OUTSIDE_ROOTS. A regular file with more than',
    'one link is PATH_HARDLINKED, nothing read (its other names may lie outside the roots), unless --allow-hardlinks.',
    '--allow-run adds evidence_run,',
    'which runs commands with the rights of the server. See docs/mcp.md.',
  ].join(' ');
  static override flags = {
    'allow-run': Flags.boolean({
      description: 'Also serve evidence_run (runs commands with the rights of the server)',
    }),
    'allow-path': Flags.string({
      description:
        "Also let tools read files under this directory (repeatable); by default only inside the client's roots or the server's directory",
      helpValue: 'DIR',
      multiple: true,
    }),
    'allow-hardlinks': Flags.boolean({
      description: 'Also let tools read a regular file that has more than one link (PATH_HARDLINKED otherwise)',
    }),
  };
  static override examples = ['handoff mcp', 'handoff mcp --allow-run', 'handoff mcp --allow-path /tmp'];
  static override usage = generatedUsage(this);

  protected async perform(ctx: CommandContext): Promise<CommandResult> {
    const { serveMcp } = await import('../mcp/server.js');
    const { allowedPaths } = await import('../mcp/roots.js');
    const allowPaths = allowedPaths((ctx.flags['allow-path'] as string[] | undefined) ?? [], ctx.cwd);
    // The server speaks through the stream objects; a client that closed its end is not an error of the server.
    stdStream('stdout');
    stdStream('stderr');
    await serveMcp({
      allowRun: ctx.flags['allow-run'] === true,
      allowPaths,
      allowHardlinks: ctx.flags['allow-hardlinks'] === true,
      version: this.config.version,
      invoke: (id, argv, io) => invokeVerb(this.config, id, argv, io),
    });
    return {};
  }
}

/** Runs a verb as the command line would (its oclif parse and perform, in JSON mode), printing nothing. */
async function invokeVerb(config: Config, id: string, argv: string[], io: CommandIO): Promise<CommandResult> {
  const found = config.findCommand(id);
  if (found === undefined) throw new Error(`no verb ${id}`);
  const Verb = (await found.load()) as unknown as Pick<typeof HandoffCommand, 'jsonMode' | 'flags'> &
    (new (argv: string[], config: Config) => HandoffCommand);
  const json = Verb.jsonMode === 'flag' && Verb.flags?.json?.type === 'boolean' ? ['--json'] : [];
  const verb = new Verb([...json, ...argv], config);
  verb.id = found.id;
  return verb.invoke(io);
}
