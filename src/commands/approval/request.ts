/** `handoff approval request` (store-and-finalize.md §11.1): a pending approval for exact content. */
import { defineCommand } from '../../cli/command.js';
import { readUtf8File } from '../../cli/input.js';
import { nonBlank } from '../../cli/list-flags.js';
import { usage } from '../../errors.js';
import { checkIdFlags } from '../../ids.js';
import { resolveWorkspace } from '../../paths.js';

const USAGE =
  'handoff approval request (--content TEXT | --content-file PATH) [--draft-id ID] [--agent-id ID] [--workspace NAME] [--json]';

export default defineCommand({
  id: 'approval request',
  summary: 'Request an approval for exact content',
  usage: USAGE,
  flags: {
    content: { type: 'string', valueName: 'TEXT', description: 'The exact content to approve' },
    'content-file': { type: 'string', valueName: 'PATH', description: 'Read the exact content from a file (UTF-8)' },
    'draft-id': { type: 'string', valueName: 'ID', description: 'The requesting contract (sets contract_id and agent_id)' },
    'agent-id': { type: 'string', valueName: 'ID', description: 'The requesting agent' },
    workspace: { type: 'string', valueName: 'NAME', description: 'Workspace (default: $HANDOFF_WORKSPACE, else the git top-level name)' },
    json: { type: 'boolean', description: 'Print one JSON object' },
  },
  async run(ctx) {
    const content = ctx.flags.content as string | undefined;
    const contentFile = ctx.flags['content-file'] as string | undefined;
    if ((content === undefined) === (contentFile === undefined)) {
      throw usage('pass exactly one of --content and --content-file');
    }
    const { draftId, agentId } = checkIdFlags(ctx.flags['draft-id'] as string | undefined, ctx.flags['agent-id'] as string | undefined);
    const workspace = resolveWorkspace(nonBlank(ctx.flags.workspace as string | undefined, '--workspace'), ctx.env, ctx.cwd);
    const text = content ?? readUtf8File(contentFile!);
    if (text.trim() === '') throw usage('the approval content must not be blank');

    const { requestApproval } = await import('../../approvals/request.js');
    const { row, fillCommand } = await requestApproval({ env: ctx.env, cwd: ctx.cwd, content: text, workspace, draftId, agentId });
    return {
      json: { status: 'ok', approval_id: row.id, fingerprint: row.fingerprint, approval_status: row.status, fill_command: fillCommand },
      text: [
        `OK: approval ${row.id} requested (pending).`,
        `fingerprint: ${row.fingerprint}`,
        `Write approval_request.exact_content (this exact content) and approval_request.approval_id ${row.id} with this line, then finalize in state APPROVAL_REQUEST:`,
        fillCommand,
      ].join('\n'),
    };
  },
});
