/** `handoff autocomplete SHELL`: the completion script of one shell, rendered from the command table. */
import { bashScript } from './bash.js';
import { fishScript } from './fish.js';
import type { CompletionModel } from './model.js';
import { zshScript } from './zsh.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** How each shell loads the script at every start: the script's own first lines and the verb's help say it. */
export const INSTALL: Readonly<Record<Shell, string>> = {
  bash: "echo 'source <(handoff autocomplete bash)' >> ~/.bashrc",
  zsh: "echo 'source <(handoff autocomplete zsh)' >> ~/.zshrc",
  fish: 'handoff autocomplete fish > ~/.config/fish/completions/handoff.fish',
};

export function completionScript(shell: Shell, model: CompletionModel, version: string): string {
  const header = [
    `${shell} completion for ${model.bin} ${version}: topics, verbs, flags and their fixed values.`,
    `Written by \`${model.bin} autocomplete ${shell}\` from the command table; write it again after an upgrade.`,
    `Load it with: ${INSTALL[shell]}${shell === 'zsh' ? '   (below the line that runs compinit)' : ''}`,
  ];
  if (shell === 'bash') return bashScript(model, header);
  if (shell === 'zsh') return zshScript(model, header);
  return fishScript(model, header);
}
