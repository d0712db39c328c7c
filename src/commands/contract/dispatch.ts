import * as Flags from '@oclif/core/flags';
import { generatedUsage } from '../../cli/usage.js';
import { HandoffCommand } from '../../cli/base-command.js';
import type { CommandContext, CommandResult } from '../../cli/command.js';
import type { FlagsOf } from '../../cli/flags.js';
import { parseDispatchFlags } from '../../dispatch/options.js';
import { exposeTestChanges } from '../../store/handoff-row.js';

export default class ContractDispatch extends HandoffCommand {
  static override summary = 'Open a contract for an agent before it runs';
  static override description =
    'Mints the agent and contract ids, writes the draft and a DISPATCHED row, and prints the contract block to paste ' +
    "into the agent's prompt (stdout carries only the block; a one-line summary goes to stderr). Every check runs " +
    'before anything is written; the store is created only after all of them passed.';
  static override oneOf = [['goal', 'goal-file']];
  static override flags = {
    goal: Flags.string({ helpValue: 'TEXT', description: 'What the agent must achieve (or --goal-file)' }),
    'goal-file': Flags.string({
      exclusive: ['goal'],
      helpValue: 'PATH',
      description: 'Read the goal from a UTF-8 file',
    }),
    kind: Flags.string({
      helpValue: 'KIND',
      description: 'task_execution, verifier, investigation or any tag (^[a-z][a-z0-9_-]{0,31}$)',
    }),
    'plan-task-id': Flags.string({
      helpValue: 'ID',
      description: 'Bind the turn to a plan task: it must close NEEDS_VERIFICATION',
    }),
    'parent-handoff-id': Flags.string({
      helpValue: 'N',
      description: 'The row this turn follows up (a verifier: the producer row)',
    }),
    brief: Flags.string({
      helpValue: 'NAME',
      description: 'A brief of the workspace; its acceptance criteria join the contract',
    }),
    consolidation: Flags.boolean({
      description: 'Consolidation / cross-check work: every close needs a consolidation_report',
    }),
    verification: Flags.string({
      helpValue: 'POLICY',
      description:
        'What COMPLETE needs: receipt, typed or any (default $HANDOFF_DISPATCH_VERIFICATION, else typed for investigation, receipt for other kinds)',
    }),
    'require-receipt': Flags.boolean({ description: 'The same as --verification receipt' }),
    check: Flags.string({
      multiple: true,
      helpValue: 'CMD',
      description: 'A command that needs its own passing, fresh receipt in the chain before COMPLETE (repeatable)',
    }),
    'can-write': Flags.string({
      multiple: true,
      helpValue: 'SECTION',
      description: 'A section update_contracts may write (repeatable)',
    }),
    acceptance: Flags.string({
      multiple: true,
      helpValue: 'TEXT',
      description: 'One extra acceptance criterion (repeatable)',
    }),
    'require-approval': Flags.string({
      multiple: true,
      helpValue: 'PATTERN',
      description:
        'A tool call that needs an approval before it runs (repeatable): Bash(CMD GLOB), Write(PATH GLOB), Edit(PATH GLOB) or mcp__SERVER__TOOL; adds to $HANDOFF_APPROVAL_PATTERNS',
    }),
    'agent-id': Flags.string({ helpValue: 'ID', description: 'Reuse an agent id instead of minting one' }),
    'harness-id': Flags.string({
      helpValue: 'HID',
      description: "Tie a harness run id (e.g. a headless session's id) at birth",
    }),
    workspace: Flags.string({
      helpValue: 'NAME',
      description: 'Workspace of the row (else $HANDOFF_WORKSPACE, else the git top-level name)',
    }),
    workdir: Flags.string({
      helpValue: 'DIR',
      description: "The work tree whose test files the turn's base records (default: the working directory)",
    }),
    tests: Flags.string({
      multiple: true,
      helpValue: 'GLOB',
      description: 'Which files are tests (repeatable; else $HANDOFF_TEST_GLOBS, else the default list)',
    }),
    'protect-tests': Flags.boolean({
      description: 'A COMPLETE close refuses any modified or deleted test file (TESTS_PROTECTED)',
    }),
    json: Flags.boolean({ description: 'Print one JSON object on stdout' }),
  };
  static override examples = [
    'handoff contract dispatch --goal "Add idempotency keys to POST /payments" --kind task_execution --plan-task-id T-7',
    'handoff contract dispatch --goal "Verify the payments change" --kind verifier --parent-handoff-id 1 --check "npm test" --json',
  ];
  static override usage = generatedUsage(this);

  protected async perform(ctx: CommandContext<FlagsOf<typeof ContractDispatch>>): Promise<CommandResult> {
    const f = ctx.flags;
    const req = parseDispatchFlags(
      {
        goal: f.goal,
        goalFile: f['goal-file'],
        kind: f.kind,
        planTaskId: f['plan-task-id'],
        parentHandoffId: f['parent-handoff-id'],
        brief: f.brief,
        consolidation: f.consolidation === true,
        requireReceipt: f['require-receipt'] === true,
        verification: f.verification,
        checks: f.check ?? [],
        canWrite: f['can-write'] ?? [],
        acceptance: f.acceptance ?? [],
        requireApproval: f['require-approval'] ?? [],
        agentId: f['agent-id'],
        harnessId: f['harness-id'],
        workspace: f.workspace,
        workdir: f.workdir,
        tests: f.tests ?? [],
        protectTests: f['protect-tests'] === true,
      },
      ctx.env,
      ctx.cwd,
    );
    const { dispatch } = await import('../../dispatch/service.js');
    const { row, block, rules, text, claimToken } = await dispatch(req, ctx.env, ctx.cwd);
    // The claim token goes to the orchestrator (stderr, and --json), never into the block meant for the prompt.
    ctx.notice(`claim_token=${claimToken}`);
    if (!ctx.json) {
      ctx.notice(`dispatched handoff_id=${row.id} contract_id=${row.contract_id}`);
      return { text };
    }
    return {
      json: {
        status: 'ok',
        handoff_id: row.id,
        contract_id: row.contract_id,
        draft_id: row.contract_id,
        claim_token: claimToken,
        agent_id: row.agent_id,
        workspace: row.workspace,
        agent_state: row.agent_state,
        kind: block.kind,
        goal: block.goal,
        bindings: {
          plan_task_id: row.plan_task_id,
          parent_handoff_id: row.parent_handoff_id,
          brief: block.brief ?? null,
          consolidation: block.consolidation,
          require_receipt: block.requireReceipt,
          verification: block.verification,
          checks: block.checks.length > 0 ? block.checks : null,
          can_write: block.canWrite.length > 0 ? block.canWrite : null,
          harness_id: row.harness_id,
          require_approval: (block.requireApproval?.length ?? 0) > 0 ? block.requireApproval : null,
        },
        acceptance: block.acceptance,
        test_base: exposeTestChanges(row).test_base,
        close_rules: rules,
        contract_block: text,
      },
    };
  }
}
