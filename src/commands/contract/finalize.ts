/** `handoff contract finalize` (store-and-finalize.md §6): persist the draft in a closing state into the store. */
import { defineCommand, type CommandResult } from '../../cli/command.js';
import { nonBlank } from '../../cli/list-flags.js';
import { checkPlanTaskId } from '../../dispatch/options.js';
import { ADDRESSING_FLAGS, addressingFrom, JSON_FLAG } from '../../drafts/cli-flags.js';
import { EXIT } from '../../errors.js';
import { resolveWorkspace } from '../../paths.js';
import { withAmbiguityRendering } from '../../render/ambiguity.js';
import { rejectionBlock } from '../../render/rejection.js';
import { finalizeDraft, type FinalizeOutcome } from '../../finalize/service.js';

const HEADER = 'finalize refused -- nothing was persisted.';

export default defineCommand({
  id: 'contract finalize',
  summary: 'Persist the draft in a closing state into the store',
  usage:
    'handoff contract finalize [--draft-id ID | --agent-id ID] [--workspace NAME] [--plan-task-id ID] [--allow-stale] [--json]',
  flags: {
    ...ADDRESSING_FLAGS,
    workspace: { type: 'string', valueName: 'NAME', description: 'Workspace of a new row (default: $HANDOFF_WORKSPACE, else the git top-level name)' },
    'plan-task-id': { type: 'string', valueName: 'ID', description: 'Bind an unbound turn to this plan task' },
    'allow-stale': { type: 'boolean', description: 'Skip RECEIPT_STALE (every other receipt check still runs)' },
    json: JSON_FLAG,
  },
  async run(ctx) {
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
      ),
    );
  },
});

function render(o: FinalizeOutcome): CommandResult {
  if (o.kind === 'rejected') {
    return {
      exit: EXIT.REJECTED,
      json: { status: 'rejected', draft_id: o.tipId, codes: o.codes, errors: o.errors, repair: o.repair },
      errText: rejectionBlock(HEADER, { errors: o.errors, repair: o.repair }),
    };
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
  };
  const text = o.created
    ? `OK: draft ${o.tipId} finalized (handoff_id=${o.handoffId}, state=${o.agentState}).`
    : `OK: draft ${o.tipId} already finalized (handoff_id=${o.handoffId}, state=${o.agentState}); no-op.`;
  return { json, text };
}
