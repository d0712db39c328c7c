import { defineCommand } from '../../cli/command.js';
import { ADDRESSING_FLAGS, addressingFrom, JSON_FLAG } from '../../drafts/cli-flags.js';
import { addToList } from '../../drafts/mutate.js';
import { notJsonNotice, parseFieldPath, parseValueArg } from '../../drafts/value.js';
import { writeAndRender } from '../../render/write-result.js';

export default defineCommand({
  id: 'contract add',
  summary: 'Append one entry to a list of the draft',
  usage: 'handoff contract add FIELD VALUE [--draft-id ID] [--agent-id ID] [--json]',
  description: [
    'Extends the list at FIELD by one entry: an absent or null value becomes [VALUE]; an array VALUE is appended as',
    'one nested entry; any other existing value is refused (NOT_A_LIST). VALUE is parsed as for `set`. The whole',
    'envelope is validated; a rejected write stores nothing.',
  ].join('\n'),
  flags: { ...ADDRESSING_FLAGS, json: JSON_FLAG },
  args: [
    { name: 'FIELD', required: true, description: 'Dotted path of a list, e.g. evidence_report.commands_run' },
    { name: 'VALUE', required: true, description: 'JSON value, or any other text as a string' },
  ],
  run(ctx) {
    const addressing = addressingFrom(ctx.flags);
    const segments = parseFieldPath(ctx.args.FIELD ?? '');
    const value = parseValueArg(ctx.args.VALUE ?? '');
    const notJson = notJsonNotice(ctx.args.VALUE ?? '');
    if (notJson !== undefined) ctx.notice(notJson);
    return writeAndRender(ctx, addressing, (base, draftId) => addToList(base, segments, value, draftId));
  },
});
