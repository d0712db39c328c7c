import * as Args from '@oclif/core/args';
import { generatedUsage } from '../cli/usage.js';
import { HandoffCommand } from '../cli/base-command.js';
import type { CommandContext, CommandResult } from '../cli/command.js';
import { showHelp } from '../cli/routing.js';

export default class Help extends HandoffCommand {
  static override summary = 'Show help for handoff, a topic, or one verb';
  static override description =
    "Shows the topics and verbs, the environment and the exit-code table; with a topic, its verbs; with a topic and a verb, that verb's usage, flags, description and examples. `--help` after any verb shows the same page.";
  static override examples = ['handoff help', 'handoff help contract', 'handoff help contract set'];
  static override args = {
    TOPIC: Args.string({ description: 'A topic: contract, evidence, brief, approval', ignoreStdin: true }),
    VERB: Args.string({ description: 'A verb of that topic', ignoreStdin: true }),
  };
  static override usage = generatedUsage(this);

  protected async perform(ctx: CommandContext): Promise<CommandResult> {
    const words = [ctx.args.TOPIC, ctx.args.VERB].filter((w): w is string => w !== undefined);
    await showHelp(this.config, words, ctx);
    return {};
  }
}
