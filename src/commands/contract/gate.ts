import * as Flags from '@oclif/core/flags';
import { HandoffCommand } from '../../cli/base-command.js';
import type { CommandContext, CommandResult, FlagValues } from '../../cli/command.js';
import { errorOutput, resultOutput, type Output } from '../../cli/output.js';
import { usage, type HandoffError } from '../../errors.js';
import { checkDraftId } from '../../ids.js';
import { parseHookInput, type HookInput } from '../../gate/hook-input.js';
import type { Answer, GateBudget } from '../../gate/budget.js';
import type { GateOptions, GateRun } from '../../gate/service.js';

const USAGE =
  'handoff contract gate [--draft-id ID] [--max-rejections N] [--on-missing block|allow] [--on-store-error block|allow] [--stop-reason VALUE] [--timeout 20s|MSms] [--workspace NAME] [--json]';

const str = (flags: FlagValues, name: string): string | undefined => {
  const v = flags[name];
  return typeof v === 'string' ? v : undefined;
};

/** Flag values (dispatch-and-gate.md §4.1); a bad one is a usage error, which the gate turns into exit 1. */
function gateOptions(flags: FlagValues): GateOptions & { timeout?: string } {
  const draftId = checkDraftId(str(flags, 'draft-id'));
  const maxText = str(flags, 'max-rejections') ?? '3';
  if (!/^[1-9][0-9]{0,8}$/.test(maxText)) throw usage(`--max-rejections ${JSON.stringify(maxText)} must be an integer >= 1`);
  const onMissing = str(flags, 'on-missing') ?? 'block';
  if (onMissing !== 'block' && onMissing !== 'allow') throw usage(`--on-missing ${JSON.stringify(onMissing)} must be block or allow`);
  const onStoreError = str(flags, 'on-store-error') ?? 'allow';
  if (onStoreError !== 'block' && onStoreError !== 'allow') throw usage(`--on-store-error ${JSON.stringify(onStoreError)} must be block or allow`);
  const workspace = str(flags, 'workspace');
  if (workspace !== undefined && workspace.trim() === '') throw usage('--workspace must be non-blank');
  return { draftId, maxRejections: Number(maxText), onMissing, onStoreError, stopReason: str(flags, 'stop-reason'), workspace, timeout: str(flags, 'timeout') };
}

/** The gate's output of a decided run (the one place that turns a verdict into what the hook sees). */
function gateResult(r: GateRun, json: boolean): CommandResult & { jsonStderr?: string } {
  if (json) return { exit: r.exit, json: r.verdict, jsonStderr: r.reason };
  if (r.exit === 2) return { exit: 2, errText: r.reason };
  return { exit: 0, text: r.systemMessage === undefined ? undefined : JSON.stringify({ systemMessage: r.systemMessage }) };
}

const VERB = { id: 'contract gate', usage: USAGE, failOpen: true };

/** The bytes of an answer, exactly as the command prints it (the budget's watchdog writes them itself). */
function answerOutput(a: Answer, json: boolean): Output {
  if ('error' in a) return errorOutput(a.error, json, VERB);
  const result = gateResult(a.run, json);
  const out = resultOutput(result, json);
  return result.jsonStderr === undefined ? out : { ...out, stderr: `${result.jsonStderr}\n` };
}

export default class ContractGate extends HandoffCommand {
  static override summary = 'Stop hook: block a stop without a valid, finalized contract';
  static override usage = USAGE.replace(/^handoff /, '');
  static override description = 'Reads Claude Code Stop / SubagentStop hook JSON on stdin (optional with --draft-id), finds the turn\'s contract' +
    '(--draft-id, the claimed run id, or the contract block in the turn\'s own prompt) and judges its stored row.' +
    'Exit 0 allows the stop (an excused truncation or a tripped breaker prints {"systemMessage": ...}); exit 2 blocks' +
    'it with the reason on stderr; a problem of the gate itself exits 1 ("stop not gated"). See docs/hooks.md.';
  static override failOpen = true;
  static override flags = {
    'draft-id': Flags.string({ helpValue: 'ID', description: 'Name the contract explicitly (stdin becomes optional)' }),
    'max-rejections': Flags.string({ helpValue: 'N', description: 'Rejections per turn; the Nth trips the breaker (integer >= 1, default 3)' }),
    'on-missing': Flags.string({ helpValue: 'block|allow', description: 'What to do when no contract is found (default block)' }),
    'on-store-error': Flags.string({
      helpValue: 'block|allow',
      description: 'A store or data-root problem (STORE_*, DATA_ROOT_*): allow = exit 1, stop not gated (default); block = block the stop, naming the code',
    }),
    'stop-reason': Flags.string({ helpValue: 'VALUE', description: 'Override the stop reason from stdin or the transcript' }),
    timeout: Flags.string({
      helpValue: '20s|MSms',
      description:
        "The gate's time budget, counted from its start, with its unit (default 20s; 100ms to 600s). Past it: before the contract is found, STORE_UNREACHABLE (exit 1, or a block under --on-store-error block); after, a GATE_BUDGET_EXCEEDED block; once decided, unfinished store writes are abandoned",
    }),
    workspace: Flags.string({ helpValue: 'NAME', description: 'Workspace for a capture that inserts a row' }),
    json: Flags.boolean({ description: 'Print only the verdict object on stdout; the verdict counts and captures exactly as a hook call' }),
  };
  static override examples = [
    'handoff contract gate --draft-id a0123456789abcdef.0123456789ab --json',
    'handoff contract gate --on-missing allow --max-rejections 5',
    'handoff contract gate --on-store-error block',
  ];

  protected async perform(ctx: CommandContext): Promise<CommandResult> {
    const opts = gateOptions(ctx.flags);
    const { GateBudget: Budget, parseGateTimeout } = await import('../../gate/budget.js');
    const budgetMs = parseGateTimeout(opts.timeout);
    const { conditionBlock, runGate } = await import('../../gate/service.js');
    let input: HookInput | undefined;
    const block = (e: HandoffError, count: boolean, contractId?: string): Answer => ({
      run: conditionBlock(opts, input, ctx.env, ctx.cwd, { code: e.code, message: e.message, contractId }, count),
    });
    const budget: GateBudget = new Budget({
      budgetMs,
      output: (a) => answerOutput(a, ctx.json),
      lookupAnswer: (e, count) => (opts.onStoreError === 'block' ? block(e, count) : { error: e }),
      exceededAnswer: (e, count): Answer => block(e, count, budget.contractId),
    });
    const answer = await budget.run(async () => {
      if (opts.draftId === undefined) {
        // Never wait on a terminal: without --draft-id the hook JSON is required.
        input = parseHookInput(ctx.stdinIsTTY ? '' : (await ctx.readStdin()).toString('utf8'));
      } else if (!ctx.stdinIsTTY) {
        const raw = (await ctx.readStdin()).toString('utf8');
        if (raw.trim() !== '') input = parseHookInput(raw);
      }
      return runGate(opts, input, ctx.env, ctx.cwd, budget);
    });
    // The watchdog answered already (this thread was stuck): print nothing; it ends the process.
    if (!budget.claim(answerOutput(answer, ctx.json).exit)) await new Promise<never>(() => undefined);
    // After the answer is printed (the caller prints it before any immediate runs): end abandoned calls with it.
    setImmediate(() => budget.written());
    if ('error' in answer) throw answer.error;
    const { jsonStderr, ...result } = gateResult(answer.run, ctx.json);
    if (jsonStderr !== undefined) ctx.stderr(`${jsonStderr}\n`);
    return result;
  }
}
