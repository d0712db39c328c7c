import * as Flags from '@oclif/core/flags';
import { generatedUsage } from '../../cli/usage.js';
import { HandoffCommand } from '../../cli/base-command.js';
import type { CommandContext, CommandResult } from '../../cli/command.js';
import type { FlagsOf } from '../../cli/flags.js';
import { HARNESSES, harnessChoices } from '../../harnesses/index.js';
import { checkDraftId } from '../../ids.js';

export default class HooksTest extends HandoffCommand {
  static override summary = 'Show what the installed stop hook would answer, changing nothing';
  static override description =
    'Feeds a sample stop input through the installed stop hook command exactly as the harness runs it (its command line ' +
    "through /bin/sh, this environment, the project as working directory, the input on stdin in the harness's shape, a " +
    "transcript in its format whose first user message names --contract's contract, or none) with the gate's --dry-run " +
    'added, and prints the verdict and the answer the harness would get. Nothing is captured, claimed, recorded or ' +
    'counted: the store and the breaker stay byte for byte as they were. Exit 1 when the hook does not answer in the ' +
    "harness's form (the harness would let the stop through ungated); HOOK_NOT_INSTALLED when there is no stop hook to run.";
  static override flags = {
    harness: Flags.option({ options: HARNESSES })({
      required: true,
      helpValue: harnessChoices(HARNESSES),
      description: 'The harness whose installed hook to run',
    }),
    scope: Flags.option({ options: ['project', 'user'] as const, default: 'project' as const })({
      helpValue: 'project|user',
      description: "project (default): the project's config; user: your own",
    }),
    contract: Flags.string({
      helpValue: 'ID',
      description: "A dispatched contract the sample turn's prompt names (default: a turn that names none)",
    }),
    json: Flags.boolean({ description: 'Print one JSON object' }),
  };
  static override examples = [
    'handoff hooks test --harness claude',
    'handoff hooks test --harness codex --contract a0123456789abcdef.0123456789ab --json',
  ];
  static override usage = generatedUsage(this);

  protected async perform(ctx: CommandContext<FlagsOf<typeof HooksTest>>): Promise<CommandResult> {
    const contractId = checkDraftId(ctx.flags.contract, '--contract');
    const { testHook } = await import('../../hooks/hook-test.js');
    const r = testHook({ harness: ctx.flags.harness, scope: ctx.flags.scope, env: ctx.env, cwd: ctx.cwd, contractId });
    const v = r.verdict;
    const lines = [`hook: ${r.command} --dry-run (${r.event}, ${r.path})`];
    if (v !== null) {
      const codes = Array.isArray(v.codes) && v.codes.length > 0 ? ` ${(v.codes as string[]).join(', ')}` : '';
      lines.push(
        `verdict: ${String(v.decision)}${codes} (contract ${typeof v.contract_id === 'string' ? v.contract_id : 'none'})`,
      );
    } else lines.push('verdict: none (the hook gave no verdict)');
    lines.push(`answer: exit ${r.answer.exit}`);
    if (r.answer.stdout !== undefined && r.answer.stdout !== '') lines.push(`  stdout: ${r.answer.stdout.trimEnd()}`);
    if (r.answer.stderr !== undefined && r.answer.stderr !== '') lines.push(`  stderr: ${r.answer.stderr.trimEnd()}`);
    lines.push(
      r.answered
        ? 'Nothing was captured, claimed, recorded or counted (--dry-run).'
        : `The hook did not answer in ${r.harness}'s form: the harness would let the stop through ungated.`,
    );
    return { exit: r.answered ? 0 : 1, json: { ...r }, text: lines.join('\n') };
  }
}
