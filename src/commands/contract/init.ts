import { defineCommand } from '../../cli/command.js';
import { addressingFrom, AGENT_ID_FLAG, JSON_FLAG, stringFlag } from '../../drafts/cli-flags.js';
import { initDraft } from '../../drafts/init.js';

export default defineCommand({
  id: 'contract init',
  summary: 'Start a new draft envelope',
  usage: 'handoff contract init [--agent-id ID] [--draft-id ID] [--workspace NAME] [--json]',
  description: [
    'Creates a draft holding the initial envelope and prints its ids. Pass --draft-id <draft_id> on every later call.',
    'Without flags a new agent id and draft id are minted; an existing --draft-id is refused (DRAFT_EXISTS).',
    'The workspace (--workspace, else $HANDOFF_WORKSPACE, else the git top-level or folder name made into a slug) is',
    'recorded beside the draft: later verbs on the draft use it whatever the current directory. init never touches',
    'the store.',
  ].join('\n'),
  flags: {
    'agent-id': { ...AGENT_ID_FLAG, description: 'Reuse this agent id instead of minting one' },
    'draft-id': { type: 'string', valueName: 'ID', description: 'Create the draft under this exact id (must not exist)' },
    workspace: { type: 'string', valueName: 'NAME', description: 'The workspace of the draft, a safe slug (default: $HANDOFF_WORKSPACE, else the git top-level name)' },
    json: JSON_FLAG,
  },
  async run(ctx) {
    const flags = addressingFrom(ctx.flags);
    const r = await initDraft(ctx.env, ctx.cwd, { ...flags, workspaceFlag: stringFlag(ctx.flags, 'workspace') });
    return {
      json: { status: 'ok', draft_id: r.draftId, agent_id: r.agentId, agent_id_minted: r.agentIdMinted, workspace: r.workspace },
      text: [
        `OK: draft ${r.draftId} created.`,
        `agent_id: ${r.agentId}`,
        `draft_id: ${r.draftId}`,
        `Pass --draft-id ${r.draftId} on every later call; agent_status.agent_id already holds the agent_id.`,
      ].join('\n'),
    };
  },
});
