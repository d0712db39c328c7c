import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { generatedUsage } from '../../cli/usage.js';
import { HandoffCommand } from '../../cli/base-command.js';
import type { CommandContext, CommandResult } from '../../cli/command.js';
import { EXIT } from '../../errors.js';
import { parseShowId } from '../../evidence/flags.js';

export default class EvidenceShow extends HandoffCommand {
  static override summary = 'Show (and verify) one evidence row or receipt';
  static override description =
    'ID is an evidence id (a positive integer) or a receipt id (R- and 16 lowercase hex). --verify recomputes the sha256 ' +
    'of the stored payload; a missing or altered payload is EVIDENCE_HASH_MISMATCH (exit 1): --json still prints the ' +
    'object (status rejected); human mode prints only the Rejected: line on stderr.';
  static override flags = {
    verify: Flags.boolean({ description: 'Recompute the sha256 of the stored payload' }),
    json: Flags.boolean({ description: 'Print one JSON object' }),
  };
  static override args = {
    ID: Args.string({ required: true, description: 'Evidence id or receipt id (R-…)', ignoreStdin: true }),
  };
  static override examples = ['handoff evidence show 1 --verify', 'handoff evidence show R-0123456789abcdef --json'];
  static override usage = generatedUsage(this);

  protected async perform(ctx: CommandContext): Promise<CommandResult> {
    const id = parseShowId(ctx.args.ID ?? '');
    if (id.kind === 'receipt') {
      // The receipt form belongs to the receipts module: ctx.args.ID is the checked receipt id.
      const { showReceipt } = await import('../../receipts/show.js');
      return showReceipt(ctx.env, ctx.cwd, ctx.args.ID ?? '', ctx.flags.verify === true);
    }
    const verify = ctx.flags.verify === true;
    const { showEvidence } = await import('../../evidence/read.js');
    const { fields } = await import('../../evidence/format.js');
    const r = await showEvidence(ctx.env, ctx.cwd, id.id, verify);
    const text = fields({
      ...r.evidence,
      ...(r.blob_exists === undefined ? {} : { blob_exists: r.blob_exists }),
      ...extra(r),
    });
    if (!verify || r.verified === true) return { json: { status: 'ok', ...r }, text };
    const why =
      r.evidence.artifact_path !== null && r.blob_exists === false
        ? 'its blob is missing'
        : 'its payload no longer matches';
    const error = `evidence ${r.evidence.id} failed verification: ${why} (recorded sha256 ${r.evidence.sha256}, actual ${r.actual_sha256 ?? 'none'})`;
    // A failure prints nothing on stdout in human mode; --json keeps the whole object.
    return {
      exit: EXIT.REJECTED,
      json: { status: 'rejected', code: 'EVIDENCE_HASH_MISMATCH', error, ...r },
      errText: `Rejected: ${error}`,
    };
  }
}
function extra(r: { verified?: boolean; actual_sha256?: string | null }): Record<string, unknown> {
  return r.verified === undefined ? {} : { verified: r.verified, actual_sha256: r.actual_sha256 };
}
