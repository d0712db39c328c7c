import * as Flags from '@oclif/core/flags';
import { generatedUsage } from '../../cli/usage.js';
import { HandoffCommand } from '../../cli/base-command.js';
import type { CommandContext, CommandResult } from '../../cli/command.js';
import type { FlagsOf } from '../../cli/flags.js';
import { usage } from '../../errors.js';
import { EVIDENCE_TYPES, isBlank, nonBlankFlag } from '../../evidence/flags.js';
import { checkSlug, workspaceSlug } from '../../evidence/slug.js';
import { checkDraftId } from '../../ids.js';

const WS = 'Workspace slug (default: $HANDOFF_WORKSPACE, git top-level or cwd name)';

export default class EvidenceAdd extends HandoffCommand {
  static override summary = 'Deposit evidence for an acceptance criterion';
  static override description =
    'Up to 4096 bytes (UTF-8 text) is stored inline; anything larger or binary is copied to a hashed blob at ' +
    '<root>/evidence/<workspace>/<brief>/<ac_id>/<uuid><ext>, whose path --json prints as evidence.artifact_path. On a PostgreSQL store (HANDOFF_STORE_URL) the blob goes into the store instead and artifact_path is blob:sha256:<hex>, readable from every host.';
  static override oneOf = [['text', 'artifact-file']];
  static override flags = {
    brief: Flags.string({ required: true, description: 'Brief name (safe slug)', helpValue: 'NAME' }),
    ac: Flags.string({
      required: true,
      description: 'Acceptance criterion id (safe slug; one the brief declares, if it declares any)',
      helpValue: 'AC_ID',
    }),
    type: Flags.option({ options: EVIDENCE_TYPES })({
      required: true,
      description: `One of ${EVIDENCE_TYPES.join(', ')}`,
      helpValue: 'TYPE',
    }),
    text: Flags.string({ description: 'The evidence as text (non-blank)', helpValue: 'TEXT' }),
    'artifact-file': Flags.string({
      exclusive: ['text'],
      description: 'A regular file to copy (never moved or linked)',
      helpValue: 'PATH',
    }),
    task: Flags.string({ description: 'Opaque task id', helpValue: 'TASK_ID' }),
    'created-by': Flags.string({ description: 'Producer label (stored as created_by_agent)', helpValue: 'NAME' }),
    'draft-id': Flags.string({
      description:
        'Link the evidence to this contract (its draft or row must exist); `evidence list --contract-id` finds it',
      helpValue: 'ID',
    }),
    workspace: Flags.string({ description: WS, helpValue: 'NAME' }),
    json: Flags.boolean({ description: 'Print one JSON object' }),
  };
  static override examples = [
    'handoff evidence add --brief payments --ac AC-1 --type text --text "Replayed POST /payments twice: one charge, same body"',
    'handoff evidence add --brief payments --ac AC-1 --type file --artifact-file test-output.log --json',
    'handoff evidence add --brief payments --ac AC-1 --type text --text "replay test passed" --draft-id a0123456789abcdef.0123456789ab',
  ];
  static override usage = generatedUsage(this);

  protected async perform(ctx: CommandContext<FlagsOf<typeof EvidenceAdd>>): Promise<CommandResult> {
    const { type, text, 'artifact-file': artifactFile } = ctx.flags;
    const brief = checkSlug(ctx.flags.brief, '--brief');
    const acId = checkSlug(ctx.flags.ac, '--ac');
    if ((text === undefined) === (artifactFile === undefined))
      throw usage('give exactly one of --text and --artifact-file');
    if (text !== undefined && isBlank(text)) throw usage('--text must not be blank');
    if (artifactFile === '') throw usage('--artifact-file must not be empty');
    const taskId = nonBlankFlag(ctx.flags.task, '--task') ?? null;
    const createdBy = nonBlankFlag(ctx.flags['created-by'], '--created-by') ?? null;
    const contractId = checkDraftId(ctx.flags['draft-id']);
    const workspace = workspaceSlug(ctx.flags.workspace, ctx.env, ctx.cwd, ctx.notice);

    const { depositEvidence } = await import('../../evidence/deposit.js');
    const r = await depositEvidence(ctx.env, ctx.cwd, {
      workspace,
      brief,
      acId,
      type,
      text,
      artifactFile,
      taskId,
      createdBy,
      contractId,
    });
    const e = r.evidence;
    const path = e.artifact_path === null ? '' : ` path=${e.artifact_path}`;
    const linked = e.contract_id === null ? '' : ` contract=${e.contract_id}`;
    const line = `Evidence recorded: id=${e.id} brief=${e.brief} ac=${e.ac_id} type=${e.type} storage=${r.storage} size=${e.size_bytes} sha256=${e.sha256.slice(0, 12)}${linked}${path}`;
    return { json: { status: 'ok', storage: r.storage, evidence: e }, text: line };
  }
}
