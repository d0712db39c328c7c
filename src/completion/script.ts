/** `handoff autocomplete SHELL`: the completion script of one shell, rendered from the command table. */
import { bashScript } from './bash.js';
import { fishScript } from './fish.js';
import type { CompletionModel } from './model.js';
import { zshScript } from './zsh.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** How each shell loads the script: said in the script's first lines, in docs/commands.md and in the verb's help. */
export const INSTALL: Readonly<Record<Shell, string[]>> = {
  bash: [
    "echo 'source <(handoff autocomplete bash)' >> ~/.bashrc",
    'or, with the bash-completion package: handoff autocomplete bash > ~/.local/share/bash-completion/completions/handoff',
  ],
  zsh: [
    "echo 'source <(handoff autocomplete zsh)' >> ~/.zshrc   (below the line that runs compinit)",
    'or: handoff autocomplete zsh > ~/.zfunc/_handoff, with fpath=(~/.zfunc $fpath) before compinit',
  ],
  fish: ['handoff autocomplete fish > ~/.config/fish/completions/handoff.fish'],
};

export function completionScript(shell: Shell, model: CompletionModel, version: string): string {
  const header = [
    `${shell} completion for ${model.bin} ${version}: topics, verbs, flags and their fixed values.`,
    `Written by \`${model.bin} autocomplete ${shell}\` from the command table; write it again after an upgrade.`,
    'Load it with:',
    ...INSTALL[shell].map((l) => `  ${l}`),
  ];
  if (shell === 'bash') return bashScript(model, header);
  if (shell === 'zsh') return zshScript(model, header);
  return fishScript(model, header);
}
