/** `handoff approval list`. Never creates the store; an absent file is an empty list. */
import * as Flags from '@oclif/core/flags';
import { generatedUsage } from '../../cli/usage.js';
import { HandoffCommand } from '../../cli/base-command.js';
import type { CommandContext, CommandResult } from '../../cli/command.js';
import type { FlagsOf } from '../../cli/flags.js';
import { afterOf, pageFlags, pageFooter, pageJson, pageRequest, storePage } from '../../cli/page.js';
import { nonBlank } from '../../cli/list-flags.js';
import { checkAgentId, checkDraftId } from '../../ids.js';
import { cut, renderTable } from '../../render/table.js';
import type { ApprovalRow, ApprovalStatus } from '../../store/approvals.js';

// The store's status list (src/store/approvals.ts), spelled here so that help never loads the store module.
const STATUSES = [
  'pending',
  'approved',
  'rejected',
  'revoked',
  'expired',
  'used',
] as const satisfies readonly ApprovalStatus[];

export default class ApprovalList extends HandoffCommand {
  static override summary = 'List approvals';
  static override description =
    'Lists approvals, newest first, filtered by status, requesting agent or contract, and workspace. The table cuts the content (`handoff approval show ID` prints it whole); --json has every field. Reads only; a missing store lists nothing.';
  static override flags = {
    status: Flags.option({ options: STATUSES })({
      helpValue: 'S',
      description: 'pending, approved, rejected, revoked, expired or used',
    }),
    'agent-id': Flags.string({ helpValue: 'ID', description: 'Only approvals requested by this agent' }),
    'contract-id': Flags.string({ helpValue: 'ID', description: 'Only approvals requested by this contract' }),
    workspace: Flags.string({ helpValue: 'NAME', description: 'Only approvals of this workspace' }),
    ...pageFlags('approvals'),
    json: Flags.boolean({ description: 'Print one JSON object' }),
  };
  static override examples = [
    'handoff approval list --status pending',
    'handoff approval list --contract-id a0123456789abcdef.0123456789ab --json',
  ];
  static override usage = generatedUsage(this);

  protected async perform(ctx: CommandContext<FlagsOf<typeof ApprovalList>>): Promise<CommandResult> {
    const req = pageRequest(ctx.flags);
    const filters = {
      status: ctx.flags.status,
      agent_id: checkAgentId(ctx.flags['agent-id']),
      contract_id: checkDraftId(ctx.flags['contract-id'], '--contract-id'),
      workspace: nonBlank(ctx.flags.workspace, '--workspace'),
      limit: req.fetch,
      after: afterOf('approval', req.cursor),
    };
    const { listApprovals } = await import('../../approvals/decide.js');
    const listed = await listApprovals(ctx.env, ctx.cwd, filters, req.total);
    const page = storePage('approval', req, listed.rows);
    const rows: ApprovalRow[] = page.rows;
    const total = listed.total;
    const { exposeApproval } = await import('../../store/approvals.js');
    const { escapeFormatChars } = await import('../../approvals/display.js');
    const out = rows.map(exposeApproval);
    // The table escapes control characters itself; invisible format characters (bidi overrides) are shown too.
    const shown = (text: string | null): string | null => (text === null ? null : escapeFormatChars(text));
    const text =
      rows.length === 0
        ? `No approvals matched.${total === undefined ? '' : ` ${pageFooter(page, total)}`}`
        : `${renderTable(
            ['id', 'approval_status', 'created_at', 'agent_id', 'contract_id', 'decided_by', 'content'],
            rows.map((r) => [
              r.id,
              r.status,
              r.created_at,
              r.agent_id,
              r.contract_id,
              shown(r.decided_by),
              shown(cut(r.exact_content, 60)),
            ]),
          )}\n${pageFooter(page, total)}`;
    return { json: { status: 'ok', ...pageJson(page, total), approvals: out }, text };
  }
}
