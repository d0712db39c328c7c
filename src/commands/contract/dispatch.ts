import { defineCommand, type FlagValues } from '../../cli/command.js';
import { parseDispatchFlags } from '../../dispatch/options.js';

const str = (flags: FlagValues, name: string): string | undefined => {
  const v = flags[name];
  return typeof v === 'string' ? v : undefined;
};
const list = (flags: FlagValues, name: string): string[] => {
  const v = flags[name];
  return Array.isArray(v) ? v : [];
};

export default defineCommand({
  id: 'contract dispatch',
  summary: 'Open a contract for an agent before it runs',
  usage:
    'handoff contract dispatch (--goal TEXT | --goal-file PATH) [--kind KIND] [--plan-task-id ID] [--parent-handoff-id N] [--brief NAME] [--consolidation] [--require-receipt] [--can-write SECTION]... [--acceptance TEXT]... [--agent-id ID] [--harness-id HID] [--workspace NAME] [--json]',
  description:
    'Mints the agent and contract ids, writes the draft and a DISPATCHED row, and prints the contract block to paste\n' +
    "into the agent's prompt (stdout carries only the block; a one-line summary goes to stderr). Every check runs\n" +
    'before anything is written; the store is created only after all of them passed.',
  flags: {
    goal: { type: 'string', valueName: 'TEXT', description: 'What the agent must achieve (or --goal-file)' },
    'goal-file': { type: 'string', valueName: 'PATH', description: 'Read the goal from a UTF-8 file' },
    kind: { type: 'string', valueName: 'KIND', description: 'task_execution, verifier, investigation or any tag (^[a-z][a-z0-9_-]{0,31}$)' },
    'plan-task-id': { type: 'string', valueName: 'ID', description: 'Bind the turn to a plan task: it must close NEEDS_VERIFICATION' },
    'parent-handoff-id': { type: 'string', valueName: 'N', description: 'The row this turn follows up (a verifier: the producer row)' },
    brief: { type: 'string', valueName: 'NAME', description: "A brief of the workspace; its acceptance criteria join the contract" },
    consolidation: { type: 'boolean', description: 'Consolidation / cross-check work: every close needs a consolidation_report' },
    'require-receipt': { type: 'boolean', description: 'A command/code verification claim must cite a receipt' },
    'can-write': { type: 'string', multiple: true, valueName: 'SECTION', description: 'A section update_contracts may write (repeatable)' },
    acceptance: { type: 'string', multiple: true, valueName: 'TEXT', description: 'One extra acceptance criterion (repeatable)' },
    'agent-id': { type: 'string', valueName: 'ID', description: 'Reuse an agent id instead of minting one' },
    'harness-id': { type: 'string', valueName: 'HID', description: "Tie a harness run id (e.g. a headless session's id) at birth" },
    workspace: { type: 'string', valueName: 'NAME', description: 'Workspace of the row (else $HANDOFF_WORKSPACE, else the git top-level name)' },
    json: { type: 'boolean', description: 'Print one JSON object on stdout' },
  },
  async run(ctx) {
    const f = ctx.flags;
    const req = parseDispatchFlags(
      {
        goal: str(f, 'goal'),
        goalFile: str(f, 'goal-file'),
        kind: str(f, 'kind'),
        planTaskId: str(f, 'plan-task-id'),
        parentHandoffId: str(f, 'parent-handoff-id'),
        brief: str(f, 'brief'),
        consolidation: f.consolidation === true,
        requireReceipt: f['require-receipt'] === true,
        canWrite: list(f, 'can-write'),
        acceptance: list(f, 'acceptance'),
        agentId: str(f, 'agent-id'),
        harnessId: str(f, 'harness-id'),
        workspace: str(f, 'workspace'),
      },
      ctx.env,
      ctx.cwd,
    );
    const { dispatch } = await import('../../dispatch/service.js');
    const { row, block, rules, text } = await dispatch(req, ctx.env, ctx.cwd);
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
          can_write: block.canWrite.length > 0 ? block.canWrite : null,
          harness_id: row.harness_id,
        },
        acceptance: block.acceptance,
        close_rules: rules,
        contract_block: text,
      },
    };
  },
});
