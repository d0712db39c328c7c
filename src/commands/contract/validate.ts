import { defineCommand } from '../../cli/command.js';
import { readInput } from '../../cli/input.js';
import { usage } from '../../errors.js';
import { ADDRESSING_FLAGS, addressingFrom, EXPLAIN_FLAG, explainFrom, JSON_FLAG, stringFlag } from '../../drafts/cli-flags.js';
import { validateDraft, validateText } from '../../drafts/validate.js';
import { withAmbiguityRendering } from '../../render/ambiguity.js';
import { SUBJECT_REJECTED, validationRejection } from '../../render/rejection.js';

const USAGE = 'handoff contract validate [--draft-id ID | --agent-id ID | --file PATH|-] [--consolidation] [--explain] [--json]';

export default defineCommand({
  id: 'contract validate',
  summary: 'Validate a draft or a JSON file without writing',
  usage: USAGE,
  description: [
    'Judges one envelope with the full verdict and writes nothing: a draft as stored (by --draft-id, --agent-id or',
    'the newest draft), or any JSON text with --file PATH (`-` for stdin). The consolidation mark comes from the',
    "draft's row when there is one, else from --consolidation. finalize checks more than this verdict: the agent_id",
    'against the contract id, a closing state, blind verification, update_contracts and cited receipts.',
  ].join('\n'),
  flags: {
    ...ADDRESSING_FLAGS,
    file: { type: 'string', valueName: 'PATH', description: 'Validate this JSON file instead of a draft (`-` = stdin)' },
    consolidation: { type: 'boolean', description: 'Judge the turn as marked consolidation work (closing then needs a full consolidation_report)' },
    explain: EXPLAIN_FLAG,
    json: JSON_FLAG,
  },
  async run(ctx) {
    const file = stringFlag(ctx.flags, 'file');
    const consolidation = ctx.flags.consolidation === true;
    const explain = explainFrom(ctx.flags);
    if (file !== undefined) {
      if (ctx.flags['draft-id'] !== undefined || ctx.flags['agent-id'] !== undefined) {
        throw usage(`--file cannot be combined with --draft-id or --agent-id`);
      }
      const what = file === '-' ? 'stdin' : file;
      const text = (await readInput(file, ctx.readStdin)).toString('utf8');
      const verdict = await validateText(ctx.env, ctx.cwd, text, what, consolidation);
      if (verdict.ok) return { json: { status: 'ok', source: file }, text: `OK: ${what} is valid.` };
      return validationRejection({ subject: { source: file }, verdict, header: SUBJECT_REJECTED(what), explain });
    }
    const addressing = addressingFrom(ctx.flags);
    return withAmbiguityRendering(async () => {
      const { draftId, verdict } = await validateDraft(ctx.env, ctx.cwd, addressing, consolidation);
      if (verdict.ok) return { json: { status: 'ok', draft_id: draftId }, text: `OK: ${draftId} is valid.` };
      return validationRejection({ subject: { draft_id: draftId }, verdict, header: SUBJECT_REJECTED(`draft ${draftId}`), explain });
    });
  },
});
