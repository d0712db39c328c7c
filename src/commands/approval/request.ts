/** `handoff approval request`: a pending approval for exact content. */
import * as Flags from '@oclif/core/flags';
import { generatedUsage } from '../../cli/usage.js';
import { HandoffCommand } from '../../cli/base-command.js';
import type { CommandContext, CommandResult } from '../../cli/command.js';
import { readUtf8File } from '../../input/files.js';
import { nonBlank } from '../../cli/list-flags.js';
import { usage } from '../../errors.js';
import { checkIdFlags } from '../../ids.js';
import { resolveWorkspace } from '../../paths.js';

export default class ApprovalRequest extends HandoffCommand {
  static override summary = 'Request an approval for exact content';
  static override description =
    'Records an approval request for exact content (a command, a migration, a message) and prints its id and fingerprint (the sha256 of the content). The agent then writes the same content and the id into approval_request and finalizes in state APPROVAL_REQUEST; a human reads it with `handoff approval show` and decides with `handoff approval decide`. Once approved, the executing turn cites the same id and content and finalizes, which marks the approval used (it authorizes one turn). The content is stored immutably; it may take at most half of HANDOFF_MAX_ENVELOPE_BYTES as JSON-escaped text (ENVELOPE_TOO_LARGE).';
  static override oneOf = [['content', 'content-file']];
  static override flags = {
    content: Flags.string({ helpValue: 'TEXT', description: 'The exact content to approve' }),
    'content-file': Flags.string({
      exclusive: ['content'],
      helpValue: 'PATH',
      description: 'Read the exact content from a file (UTF-8)',
    }),
    'draft-id': Flags.string({
      helpValue: 'ID',
      description: 'The requesting contract (sets contract_id and agent_id)',
    }),
    'agent-id': Flags.string({ helpValue: 'ID', description: 'The requesting agent' }),
    workspace: Flags.string({
      helpValue: 'NAME',
      description: 'Workspace (default: $HANDOFF_WORKSPACE, else the git top-level name)',
    }),
    json: Flags.boolean({ description: 'Print one JSON object' }),
  };
  static override examples = [
    'handoff approval request --content "DROP TABLE payments_old;" --draft-id a0123456789abcdef.0123456789ab',
  ];
  static override usage = generatedUsage(this);

  protected async perform(ctx: CommandContext): Promise<CommandResult> {
    const content = ctx.flags.content as string | undefined;
    const contentFile = ctx.flags['content-file'] as string | undefined;
    if ((content === undefined) === (contentFile === undefined)) {
      throw usage('pass exactly one of --content and --content-file');
    }
    const { draftId, agentId } = checkIdFlags(
      ctx.flags['draft-id'] as string | undefined,
      ctx.flags['agent-id'] as string | undefined,
    );
    const workspace = resolveWorkspace(
      nonBlank(ctx.flags.workspace as string | undefined, '--workspace'),
      ctx.env,
      ctx.cwd,
    );
    const text = content ?? readUtf8File(contentFile!, ctx.cwd);
    if (text.trim() === '') throw usage('the approval content must not be blank');

    const { requestApproval } = await import('../../approvals/request.js');
    const { row, fillCommand } = await requestApproval({
      env: ctx.env,
      cwd: ctx.cwd,
      content: text,
      workspace,
      draftId,
      agentId,
    });
    const { exceedsCut } = await import('../../approvals/display.js');
    // A long content is not printed whole here (its fill line would carry all of it): `approval show` prints it.
    const how = exceedsCut(text)
      ? [
          `The content is ${Buffer.byteLength(text, 'utf8')} bytes: \`handoff approval show ${row.id}\` prints it whole with the fill input that writes approval_request.exact_content and approval_request.approval_id; then finalize in state APPROVAL_REQUEST.`,
        ]
      : [
          `Write approval_request.exact_content (this exact content) and approval_request.approval_id ${row.id} with this line, then finalize in state APPROVAL_REQUEST:`,
          fillCommand,
        ];
    return {
      json: {
        status: 'ok',
        approval_id: row.id,
        fingerprint: row.fingerprint,
        approval_status: row.status,
        fill_command: fillCommand,
      },
      text: [`OK: approval ${row.id} requested (pending).`, `fingerprint: ${row.fingerprint}`, ...how].join('\n'),
    };
  }
}
