/** `handoff ui`: a local page for the workspace's chains and its pending approvals. A verb without a topic. */
import * as Flags from '@oclif/core/flags';
import { generatedUsage } from '../cli/usage.js';
import { HandoffCommand } from '../cli/base-command.js';
import type { CommandContext, CommandResult } from '../cli/command.js';
import { wholeNumber, type FlagsOf } from '../cli/flags.js';

export default class Ui extends HandoffCommand {
  static override summary = 'Serve a local page of chains and pending approvals';
  static override description = [
    'Serves a page on 127.0.0.1 (never another interface) for the data root and store every other verb of this',
    "directory uses: the workspace's chains, newest first, with state, liveness and degraded and cut marks; one chain",
    'as a timeline of its envelopes, the merge patch between consecutive links (as `contract chain --diff`), its',
    'receipts and evidence; the pending approvals with their exact content. Approve and reject call the same service',
    "as `approval decide` (asking the decider's name once; signed with --key as `approval decide --key` signs).",
    'The printed URL carries a random token: a request without it gets 403. Runs until interrupted (Ctrl-C, SIGTERM),',
    'then exits 0. See docs/ui.md.',
  ].join(' ');
  static override flags = {
    port: wholeNumber('port', 0, 65535, {
      helpValue: 'N',
      description: 'The port on 127.0.0.1, 0-65535 (default 0: any free port)',
    }),
    key: Flags.string({
      helpValue: 'PATH',
      description: "The approver's private key: signs the page's decisions (default: HANDOFF_SIGNING_KEY, if set)",
    }),
  };
  static override examples = ['handoff ui', 'handoff ui --port 0 --key keys/handoff.key'];
  static override usage = generatedUsage(this);

  protected async perform(ctx: CommandContext<FlagsOf<typeof Ui>>): Promise<CommandResult> {
    const { resolveWorkspace } = await import('../paths.js');
    const { decisionSigner } = await import('../attest/signer.js');
    // A bad key is refused before anything is served.
    const signer = decisionSigner(ctx.env, ctx.cwd, ctx.flags.key);
    const workspace = resolveWorkspace(undefined, ctx.env, ctx.cwd);
    const { startUiServer } = await import('../ui/server.js');
    const server = await startUiServer({ env: ctx.env, cwd: ctx.cwd, workspace, port: ctx.flags.port ?? 0, signer });
    // The handlers are in place before the URL is printed: whoever reads it may stop the server at once.
    const stopped = new Promise<void>((resolve) => {
      const stop = (): void => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        resolve();
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    ctx.stdout(`${server.url}\n`);
    ctx.notice(`Serving workspace ${workspace} on 127.0.0.1:${server.port}; Ctrl-C stops.`);
    await stopped;
    await server.close();
    return {};
  }
}
