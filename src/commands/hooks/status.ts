import * as Flags from '@oclif/core/flags';
import { generatedUsage } from '../../cli/usage.js';
import { HandoffCommand } from '../../cli/base-command.js';
import type { CommandContext, CommandResult } from '../../cli/command.js';
import type { FlagsOf } from '../../cli/flags.js';
import { HARNESSES, harnessChoices } from '../../harnesses/index.js';

interface Row {
  harness: string;
  scope: string;
  path: string;
  installed: boolean;
  commands: { event: string; command: string; resolves: boolean }[];
  error?: string;
  codex_project_trusted?: boolean | null;
  will_run?: boolean;
  why_not?: string;
}

export default class HooksStatus extends HandoffCommand {
  static override summary = 'Show where the stop gate is wired, and what it will use';
  static override description =
    'For each harness and scope: whether the gate is installed and in which file, its commands and whether each resolves ' +
    '(node and handoff exist at the written paths), and for Codex whether the project is trusted (Codex runs project hooks ' +
    'only then). Also the data root and the store a hook started from here would use. For each installed hook it says ' +
    'whether the harness will run it: its command resolves and, for Codex, Codex itself (codex app-server, hooks/list) ' +
    'lists it trusted and enabled. Exit 1 when an installed hook will not run.';
  static override flags = {
    harness: Flags.option({ options: HARNESSES })({
      helpValue: harnessChoices(HARNESSES),
      description: 'Only this harness',
    }),
    json: Flags.boolean({ description: 'Print one JSON object' }),
  };
  static override examples = ['handoff hooks status', 'handoff hooks status --harness codex --json'];
  static override usage = generatedUsage(this);

  protected async perform(ctx: CommandContext<FlagsOf<typeof HooksStatus>>): Promise<CommandResult> {
    const { addRunStates, hooksStatus } = await import('../../hooks/service.js');
    const r = await hooksStatus(ctx.env, ctx.cwd, ctx.flags.harness);
    const allRun = await addRunStates(r.hooks as Parameters<typeof addRunStates>[0], ctx.env, ctx.cwd);
    const store = r.store as { kind: string; path?: string; url?: string; exists?: boolean };
    const lines = [
      `data root: ${String(r.data_root)}${r.data_root_exists ? '' : ' (does not exist: the gate will not judge, exit 1)'}`,
      `store: ${store.kind === 'sqlite' ? `${store.path}${store.exists ? '' : ' (none yet)'}` : `PostgreSQL ${store.url}`}`,
    ];
    for (const h of r.hooks as Row[]) {
      const state = h.error !== undefined ? `unreadable: ${h.error}` : h.installed ? 'installed' : 'not installed';
      lines.push(`${h.harness} (${h.scope}): ${state} - ${h.path}`);
      for (const c of h.commands) lines.push(`  ${c.event}: ${c.command}${c.resolves ? '' : '  [does not resolve]'}`);
      if (h.codex_project_trusted === false)
        lines.push('  the project is not trusted by Codex: its hooks will not run (trust it in Codex first)');
      if (h.will_run === true) lines.push(`  ${h.harness} will run it`);
      else if (h.will_run === false) lines.push(`  ${h.harness} will NOT run it: ${h.why_not ?? 'unknown'}`);
    }
    return { exit: allRun ? 0 : 1, json: r, text: lines.join('\n') };
  }
}
