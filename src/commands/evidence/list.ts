import * as Flags from '@oclif/core/flags';
import { generatedUsage } from '../../cli/usage.js';
import { HandoffCommand } from '../../cli/base-command.js';
import type { CommandContext, CommandResult } from '../../cli/command.js';
import { memoryPage, pageFlags, pageFooter, pageJson, pageRequest } from '../../cli/page.js';
import { usage } from '../../errors.js';
import { str } from '../../evidence/flags.js';
import { checkDraftId } from '../../ids.js';
import { checkSlug, workspaceSlug } from '../../evidence/slug.js';

export default class EvidenceList extends HandoffCommand {
  static override summary = 'List evidence of a brief';
  static override description =
    'Lists the evidence rows of a brief, optionally of one acceptance criterion, or the rows `evidence add --draft-id` linked to a contract (--contract-id; with --brief, both filters apply): type, size, sha256, where the payload is stored, and which contract and agent deposited it. Reads only.';
  static override flags = {
    brief: Flags.string({ description: 'Brief name (safe slug)', helpValue: 'NAME' }),
    ac: Flags.string({ description: 'Only this acceptance criterion (exact; with --brief)', helpValue: 'AC_ID' }),
    'contract-id': Flags.string({
      description: 'Only evidence linked to this contract (by evidence add --draft-id)',
      helpValue: 'ID',
    }),
    workspace: Flags.string({
      description: 'Workspace slug (default: $HANDOFF_WORKSPACE, git top-level or cwd name)',
      helpValue: 'NAME',
    }),
    ...pageFlags('evidence rows'),
    json: Flags.boolean({ description: 'Print one JSON object' }),
  };
  static override examples = [
    'handoff evidence list --brief payments',
    'handoff evidence list --brief payments --ac AC-1 --json',
    'handoff evidence list --contract-id a0123456789abcdef.0123456789ab',
  ];
  static override usage = generatedUsage(this);

  protected async perform(ctx: CommandContext): Promise<CommandResult> {
    const req = pageRequest(ctx.flags);
    const briefFlag = str(ctx.flags.brief);
    const contractId = checkDraftId(str(ctx.flags['contract-id']), '--contract-id');
    if (briefFlag === undefined && contractId === undefined)
      throw usage(`--brief or --contract-id is required; see --help`);
    const brief = briefFlag === undefined ? undefined : checkSlug(briefFlag, '--brief');
    const acFlag = str(ctx.flags.ac);
    if (acFlag !== undefined && brief === undefined) throw usage('--ac needs --brief (ac ids belong to a brief)');
    const acId = acFlag === undefined ? undefined : checkSlug(acFlag, '--ac');
    const workspace = workspaceSlug(str(ctx.flags.workspace), ctx.env, ctx.cwd, ctx.notice);
    const { listEvidenceOf } = await import('../../evidence/read.js');
    const { evidenceTable } = await import('../../evidence/format.js');
    const r = await listEvidenceOf(ctx.env, ctx.cwd, workspace, brief, acId, contractId);
    const page = memoryPage('evidence', req, r.evidence);
    const total = req.total ? r.evidence.length : undefined;
    const text =
      page.rows.length === 0
        ? `0 evidence row(s).${total === undefined ? '' : ` ${pageFooter(page, total)}`}`
        : `${evidenceTable(page.rows)}\n${pageFooter(page, total)}`;
    return {
      json: {
        status: 'ok',
        ...pageJson(page, total),
        brief: r.brief?.name ?? null,
        brief_id: r.brief?.id ?? null,
        contract_id: contractId ?? null,
        evidence: page.rows,
      },
      text,
    };
  }
}
