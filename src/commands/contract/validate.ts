import * as Flags from '@oclif/core/flags';
import { generatedUsage } from '../../cli/usage.js';
import { HandoffCommand } from '../../cli/base-command.js';
import type { CommandContext, CommandResult } from '../../cli/command.js';
import { ADDRESSING_FLAGS, EXPLAIN_FLAG, JSON_FLAG, type FlagsOf } from '../../cli/flags.js';
import { decodeUtf8, readInput } from '../../input/files.js';
import { addressingFrom, explainFrom } from '../../drafts/cli-flags.js';
import { resolvedJson } from '../../drafts/resolve.js';
import { validateDraft, validateText } from '../../drafts/validate.js';
import { withAmbiguityRendering } from '../../render/ambiguity.js';
import { SUBJECT_REJECTED, validationRejection } from '../../render/rejection.js';

export default class ContractValidate extends HandoffCommand {
  static override summary = 'Validate a draft or a JSON file without writing';
  static override description = [
    'Judges one envelope with the full verdict and writes nothing: a draft as stored (by --draft-id, --agent-id or',
    'the newest draft), or any JSON text with --file PATH (`-` for stdin). The consolidation mark comes from the',
    "draft's row when there is one, else from --consolidation. finalize checks more than this verdict: the agent_id",
    'against the contract id, a closing state, blind verification, update_contracts and cited receipts.',
  ].join(' ');
  static override flags = {
    ...ADDRESSING_FLAGS,
    file: Flags.string({
      exclusive: ['draft-id', 'agent-id'],
      helpValue: 'PATH|-',
      description: 'Validate this JSON file instead of a draft (`-` = stdin)',
    }),
    consolidation: Flags.boolean({
      description: 'Judge the turn as marked consolidation work (closing then needs a full consolidation_report)',
    }),
    explain: EXPLAIN_FLAG,
    json: JSON_FLAG,
  };
  static override examples = [
    'handoff contract validate --draft-id a0123456789abcdef.0123456789ab',
    'handoff contract validate --file envelope.json --json',
  ];
  static override usage = generatedUsage(this);

  protected async perform(ctx: CommandContext<FlagsOf<typeof ContractValidate>>): Promise<CommandResult> {
    const file = ctx.flags.file;
    const consolidation = ctx.flags.consolidation === true;
    const explain = explainFrom(ctx.flags);
    if (file !== undefined) {
      const what = file === '-' ? 'stdin' : file;
      const text = decodeUtf8(
        await readInput(file, ctx.cwd, ctx.readStdin),
        file === '-' ? 'stdin' : JSON.stringify(file),
      );
      const verdict = await validateText(ctx.env, ctx.cwd, text, what, consolidation);
      if (verdict.ok) return { json: { status: 'ok', source: file }, text: `OK: ${what} is valid.` };
      return validationRejection({ subject: { source: file }, verdict, header: SUBJECT_REJECTED(what), explain });
    }
    const addressing = addressingFrom(ctx.flags);
    return withAmbiguityRendering(async () => {
      const { draftId, verdict, resolved } = await validateDraft(
        ctx.env,
        ctx.cwd,
        addressing,
        consolidation,
        ctx.notice,
      );
      const extra = resolvedJson(resolved);
      if (verdict.ok) return { json: { status: 'ok', draft_id: draftId, ...extra }, text: `OK: ${draftId} is valid.` };
      return validationRejection({
        subject: { draft_id: draftId },
        verdict,
        header: SUBJECT_REJECTED(`draft ${draftId}`),
        explain,
        extra,
      });
    });
  }
}
