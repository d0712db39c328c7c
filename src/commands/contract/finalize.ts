/** `handoff contract finalize`: persist the draft in a closing state into the store. */
import * as Flags from '@oclif/core/flags';
import { generatedUsage } from '../../cli/usage.js';
import { HandoffCommand } from '../../cli/base-command.js';
import type { CommandContext, CommandResult } from '../../cli/command.js';
import { ADDRESSING_FLAGS, EXPLAIN_FLAG, JSON_FLAG } from '../../cli/flags.js';
import { nonBlank } from '../../cli/list-flags.js';
import { checkPlanTaskId } from '../../dispatch/options.js';
import { addressingFrom, explainFrom } from '../../drafts/cli-flags.js';
import { resolvedJson } from '../../drafts/resolve.js';
import { EXIT } from '../../errors.js';
import { resolveWorkspace } from '../../paths.js';
import { withAmbiguityRendering } from '../../render/ambiguity.js';
import { validationRejection } from '../../render/rejection.js';
import { finalizeDraft, type FinalizeOutcome } from '../../finalize/service.js';

const HEADER = 'finalize refused -- nothing was persisted.';

export default class ContractFinalize extends HandoffCommand {
  static override summary = 'Persist the draft in a closing state into the store';
  static override description =
    "Closes the turn: persists the addressed draft, which must be valid and in a closing state (COMPLETE, BLOCKED, NEEDS_INPUT, NEEDS_VERIFICATION, APPROVAL_REQUEST), as a row of the handoff store. Before writing it checks, in order, the envelope, the agent id against the contract, the plan-task binding (blind verification), approvals, update_contracts and every cited receipt; a refusal writes nothing. A dispatched contract's row is updated in place; otherwise a new row is inserted in the workspace. Idempotent: finalizing the same envelope again is a no-op, and a COMPLETE row is write-once. Without --draft-id or --agent-id it finalizes the newest draft born in the current workspace (--workspace, else $HANDOFF_WORKSPACE, else the git top-level name) and names it on stderr. An id whose contract was closed and continued finalizes the live tip of its chain, named on stderr ([FOLLOWED]). A validation rejection lists the errors; --explain adds the full repair text.";
  static override flags = {
    ...ADDRESSING_FLAGS,
    workspace: Flags.string({
      helpValue: 'NAME',
      description:
        'Workspace of a new row; a draft born with a workspace keeps it (a different value is WORKSPACE_MISMATCH). Default: $HANDOFF_WORKSPACE, else the git top-level name',
    }),
    'plan-task-id': Flags.string({ helpValue: 'ID', description: 'Bind an unbound turn to this plan task' }),
    'allow-stale': Flags.boolean({
      description:
        'Skip RECEIPT_STALE (every other receipt check still runs); never for a COMPLETE close under the verification policy receipt',
    }),
    explain: EXPLAIN_FLAG,
    json: JSON_FLAG,
  };
  static override examples = [
    'handoff contract finalize --draft-id a0123456789abcdef.0123456789ab',
    'handoff contract finalize --draft-id a0123456789abcdef.0123456789ab --workspace payments --json',
  ];
  static override usage = generatedUsage(this);

  protected async perform(ctx: CommandContext): Promise<CommandResult> {
    const addressing = addressingFrom(ctx.flags);
    const workspaceFlag = nonBlank(ctx.flags.workspace as string | undefined, '--workspace');
    const planTaskId = checkPlanTaskId(ctx.flags['plan-task-id'] as string | undefined);
    const workspace = resolveWorkspace(workspaceFlag, ctx.env, ctx.cwd);
    return withAmbiguityRendering(async () =>
      render(
        await finalizeDraft({
          env: ctx.env,
          cwd: ctx.cwd,
          addressing,
          workspace,
          workspaceFlag,
          planTaskId,
          allowStale: ctx.flags['allow-stale'] === true,
          notice: ctx.notice,
        }),
        explainFrom(ctx.flags),
      ),
    );
  }
}
/** A validation rejection is short (codes and error lines) unless --explain asks for the repair text. */
function render(o: FinalizeOutcome, explain: boolean): CommandResult {
  if (o.kind === 'rejected') {
    return validationRejection({ subject: { draft_id: o.tipId }, verdict: o, header: HEADER, explain });
  }
  if (o.kind === 'refused') {
    const { code, message, data } = o.refusal;
    return {
      exit: EXIT.REJECTED,
      json: { status: 'rejected', draft_id: o.tipId, code, error: message, ...data },
      errText: `Rejected: ${HEADER}\n  ${code}: ${message}\n`,
    };
  }
  const json: Record<string, unknown> = {
    status: 'ok',
    created: o.created,
    ...(o.unchangedReason ? { unchanged_reason: o.unchangedReason } : {}),
    draft_id: o.tipId,
    contract_id: o.tipId,
    ...(o.followedFrom ? { followed_from: o.followedFrom } : {}),
    handoff_id: o.handoffId,
    agent_state: o.agentState,
    workspace: o.workspace,
    evidence_inserted: o.evidenceInserted,
    ...(o.receiptFreshness !== undefined && o.receiptFreshness.length > 0 ? { receipts: o.receiptFreshness } : {}),
    ...resolvedJson(o.resolved),
  };
  const receiptLines = (o.receiptFreshness ?? []).map((r) => `\n  receipt ${r.receipt_id}: freshness ${r.freshness}`);
  const text = o.created
    ? `OK: draft ${o.tipId} finalized (handoff_id=${o.handoffId}, state=${o.agentState}).${receiptLines.join('')}`
    : `OK: draft ${o.tipId} already finalized (handoff_id=${o.handoffId}, state=${o.agentState}); no-op.`;
  return { json, text };
}
