import * as Flags from '@oclif/core/flags';
import { generatedUsage } from '../../cli/usage.js';
import { HandoffCommand } from '../../cli/base-command.js';
import type { CommandContext, CommandResult } from '../../cli/command.js';
import { checkedText, type FlagsOf } from '../../cli/flags.js';
import { errorOutput, resultOutput, type Output } from '../../cli/output.js';
import { usage, type HandoffError } from '../../errors.js';
import { checkDraftId } from '../../ids.js';
import { harnessChoices } from '../../harnesses/index.js';
import type { Answer, GateBudget } from '../../gate/budget.js';
import {
  HARNESSES,
  HOOK_INPUT_LIMIT,
  parseHookInput,
  type Harness,
  type HarnessChoice,
  type HookInput,
} from '../../gate/hook-input.js';
import type { GateOptions, GateRun } from '../../gate/service.js';

/** `--max-rejections`: a whole number from 1 (at most nine digits). */
const nonBlankWorkspace = (raw: string): string => {
  if (raw.trim() === '') throw usage('--workspace must be non-blank');
  return raw;
};

function maxRejections(raw: string): number {
  if (!/^[1-9][0-9]{0,8}$/.test(raw)) throw usage(`--max-rejections ${JSON.stringify(raw)} must be an integer >= 1`);
  return Number(raw);
}

/** The gate's options from its typed flags (every value was checked by the parse; a bad one failed open, exit 1). */
function gateOptions(flags: FlagsOf<typeof ContractGate>): GateOptions & { timeout?: string } {
  const {
    'max-rejections': max,
    'on-missing': onMissing,
    'on-store-error': onStoreError,
    'stop-reason': stopReason,
    workspace,
    timeout,
    'dry-run': dryRun,
  } = flags;
  return {
    draftId: checkDraftId(flags['draft-id']),
    maxRejections: max ?? 3,
    onMissing,
    onStoreError,
    stopReason,
    workspace,
    timeout,
    dryRun: dryRun === true,
  };
}

/**
 * The gate's output of a decided run in the harness's form (the one place that turns a verdict into what the hook
 * sees); `--json` prints the verdict with the harness and the exit that harness gets.
 */
function gateResult(
  r: GateRun,
  harness: Harness,
  json: boolean,
  answerFor: typeof import('../../gate/answer.js').answerFor,
): CommandResult & { jsonStderr?: string } {
  const a = answerFor(harness, r);
  if (json) return { exit: a.exit, json: { ...r.verdict, harness, exit: a.exit }, jsonStderr: r.reason };
  return { exit: a.exit, text: a.stdout, errText: a.stderr };
}

/** The gate as the error renderer sees it (its usage line generated from its flags, like every verb's). */
const VERB = {
  id: 'contract gate',
  get usage(): string {
    return `handoff contract gate ${String(ContractGate.usage)}`;
  },
  failOpen: true,
};

export default class ContractGate extends HandoffCommand {
  static override summary = 'Stop hook: block a stop without a valid, finalized contract';
  static override description =
    'Reads the stop hook JSON of Claude Code or Codex (Stop, SubagentStop), Gemini CLI (AfterAgent), Copilot CLI (agentStop) or ' +
    "Cursor (stop) on stdin (optional with --draft-id), finds the turn's contract (--draft-id, the claimed run id, or the " +
    "contract block in the turn's own prompt) and judges its stored row. The verdict is the same for every harness; the " +
    'answer is the form that harness continues on: Claude Code and Codex block with exit 2 and the reason on stderr, Gemini ' +
    'and Copilot with {"decision":"block","reason":...}, Cursor with {"followup_message":...}. A problem of the gate itself ' +
    'exits 1 ("stop not gated"). See docs/hooks.md.';
  static override failOpen = true;
  static override flags = {
    harness: Flags.option({
      options: ['auto', ...HARNESSES] as const,
      default: 'auto' as const,
      helpValue: harnessChoices(['auto', ...HARNESSES]),
      description: 'Whose hook input and answer (default auto: recognized from the input)',
    })(),
    'draft-id': Flags.string({ helpValue: 'ID', description: 'Name the contract explicitly (stdin becomes optional)' }),
    'max-rejections': Flags.custom<number>({ parse: (raw) => Promise.resolve(maxRejections(raw)) })({
      helpValue: 'N',
      description: 'Rejections per turn; the Nth trips the breaker (integer >= 1, default 3)',
    }),
    'on-missing': Flags.option({ options: ['block', 'allow'] as const, default: 'block' as const })({
      helpValue: 'block|allow',
      description: 'What to do when no contract is found (default block)',
    }),
    'on-store-error': Flags.option({ options: ['block', 'allow'] as const, default: 'allow' as const })({
      helpValue: 'block|allow',
      description:
        'A store or data-root problem (STORE_*, DATA_ROOT_*): allow = exit 1, stop not gated (default); block = block the stop, naming the code',
    }),
    'stop-reason': Flags.string({
      helpValue: 'VALUE',
      description: 'Override the stop reason from stdin or the transcript',
    }),
    timeout: Flags.string({
      helpValue: '20s|MSms',
      description:
        "The gate's time budget, counted from its start, with its unit (default 20s; 100ms to 600s). Past it: before the contract is found, STORE_UNREACHABLE (exit 1, or a block under --on-store-error block); after, a GATE_BUDGET_EXCEEDED block; once decided, unfinished store writes are abandoned",
    }),
    workspace: checkedText(nonBlankWorkspace, {
      helpValue: 'NAME',
      description: 'Workspace for a capture that inserts a row',
    }),
    'dry-run': Flags.boolean({
      description:
        'Judge only: the same verdict and answer, with nothing captured, claimed, recorded or counted (hooks test uses it)',
    }),
    json: Flags.boolean({
      description: 'Print only the verdict object on stdout; the verdict counts and captures exactly as a hook call',
    }),
  };
  static override examples = [
    'handoff contract gate --draft-id a0123456789abcdef.0123456789ab --json',
    'handoff contract gate --on-missing allow --max-rejections 5',
    'handoff contract gate --on-store-error block',
    'handoff contract gate --harness gemini --on-missing allow',
  ];
  static override usage = generatedUsage(this);

  protected async perform(ctx: CommandContext<FlagsOf<typeof ContractGate>>): Promise<CommandResult> {
    const choice: HarnessChoice = ctx.flags.harness;
    const opts = gateOptions(ctx.flags);
    const { GateBudget: Budget, parseGateTimeout } = await import('../../gate/budget.js');
    const budgetMs = parseGateTimeout(opts.timeout);
    const { conditionBlock, runGate } = await import('../../gate/service.js');
    const { answerFor } = await import('../../gate/answer.js');
    let input: HookInput | undefined;
    // Until the input is read, a forced harness's form (auto: Claude Code's); the watchdog learns the real one after.
    const harness = (): Harness => input?.harness ?? (choice === 'auto' ? 'claude' : choice);
    /** The bytes of an answer, exactly as the command prints it (the budget's watchdog writes them itself). */
    const answerOutput = (a: Answer): Output => {
      if ('error' in a) return errorOutput(a.error, ctx.json, VERB, ctx.env);
      const result = gateResult(a.run, harness(), ctx.json, answerFor);
      const out = resultOutput(result, ctx.json);
      return result.jsonStderr === undefined ? out : { ...out, stderr: `${result.jsonStderr}\n` };
    };
    const block = (e: HandoffError, count: boolean, contractId?: string): Answer => ({
      run: conditionBlock(opts, input, ctx.env, ctx.cwd, { code: e.code, message: e.message, contractId }, count),
    });
    const budget: GateBudget = new Budget({
      budgetMs,
      origin: ctx.startedAt ?? 0,
      exitProcess: ctx.exitProcess,
      output: answerOutput,
      lookupAnswer: (e, count) => (opts.onStoreError === 'block' ? block(e, count) : { error: e }),
      exceededAnswer: (e, count): Answer => block(e, count, budget.contractId),
    });
    const answer = await budget.run(async () => {
      if (opts.draftId === undefined) {
        // Never wait on a terminal: without --draft-id the hook JSON is required.
        input = parseHookInput(ctx.stdinIsTTY ? '' : (await ctx.readStdin(HOOK_INPUT_LIMIT)).toString('utf8'), choice);
      } else if (!ctx.stdinIsTTY) {
        const raw = (await ctx.readStdin(HOOK_INPUT_LIMIT)).toString('utf8');
        if (raw.trim() !== '') input = parseHookInput(raw, choice);
      }
      budget.refresh();
      return runGate(opts, input, ctx.env, ctx.cwd, budget);
    });
    // The watchdog answered already (this thread was stuck): print nothing; it ends the process.
    if (!budget.claim(answerOutput(answer).exit)) await new Promise<never>(() => undefined);
    // After the answer is printed (the caller prints it before any immediate runs): end abandoned calls with it.
    setImmediate(() => budget.written());
    if ('error' in answer) throw answer.error;
    const { jsonStderr, ...result } = gateResult(answer.run, harness(), ctx.json, answerFor);
    if (jsonStderr !== undefined) ctx.stderr(`${jsonStderr}\n`);
    return result;
  }
}
