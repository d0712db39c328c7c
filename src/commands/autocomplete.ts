/** `handoff autocomplete SHELL`: print a completion script for bash, zsh or fish. A verb without a topic. */
import * as Args from '@oclif/core/args';
import { HandoffCommand } from '../cli/base-command.js';
import { generatedUsage } from '../cli/usage.js';
import type { CommandContext, CommandResult } from '../cli/command.js';
import { completionModel } from '../completion/model.js';
import { usage } from '../errors.js';
import { completionScript, INSTALL, SHELLS, type Shell } from '../completion/script.js';

export default class Autocomplete extends HandoffCommand {
  static override summary = 'Print a shell completion script (bash, zsh or fish)';
  static override description = [
    [
      "Prints a completion script for the shell, written from the command table: the topics and verbs, each verb's",
      'flags, and the fixed values of flags such as --state, --harness, --decision and --on-missing; file and folder',
      'flags complete paths. The script holds the table itself (a TAB never starts handoff): write it again after an',
      'upgrade. To load it at every start of the shell:',
    ].join(' '),
    '',
    ...SHELLS.map((shell) => `${shell.padEnd(6)}${INSTALL[shell]}`),
    '',
    [
      'In zsh the line goes below the one that runs compinit; the script also works saved as _handoff in a folder of',
      '$fpath. With the bash-completion package it may be saved as ~/.local/share/bash-completion/completions/handoff.',
    ].join(' '),
  ].join('\n');
  static override args = {
    SHELL: Args.string({
      description: 'bash, zsh or fish (default: how to install for the shell $SHELL names)',
      options: [...SHELLS],
      ignoreStdin: true,
    }),
  };
  static override examples = [
    'handoff autocomplete',
    'handoff autocomplete bash',
    'handoff autocomplete zsh',
    'handoff autocomplete fish',
  ];
  static override usage = generatedUsage(this);

  protected perform(ctx: CommandContext): CommandResult {
    if (ctx.args.SHELL === undefined) return howToInstall(ctx.env.SHELL);
    const shell = ctx.args.SHELL as Shell;
    const model = completionModel(this.config.bin, this.config.commands, this.config.topics);
    // Written as is: a script is never coloured or escaped like human output.
    ctx.stdout(completionScript(shell, model, this.config.version));
    return {};
  }
}

/** Without a SHELL argument: the shell `$SHELL` names, and the line that installs its script; USAGE when none fits. */
function howToInstall(shellVar: string | undefined): CommandResult {
  const name = (shellVar ?? '').split('/').pop() ?? '';
  const shell = SHELLS.find((s) => s === name);
  if (shell === undefined) {
    throw usage(
      `no shell given and $SHELL ${shellVar === undefined || shellVar === '' ? 'is not set' : `(${JSON.stringify(shellVar)}) is not bash, zsh or fish`}: run handoff autocomplete bash, zsh or fish`,
    );
  }
  const note = shell === 'zsh' ? ' (below the line that runs compinit)' : '';
  return {
    text: `Your shell is ${shell} ($SHELL). To complete handoff's commands at every start of the shell, run once${note}:\n  ${INSTALL[shell]}\nThen start a new shell. (handoff autocomplete ${shell} prints the script itself.)`,
  };
}
