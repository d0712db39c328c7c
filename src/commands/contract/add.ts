import { defineCommand } from '../../cli/command.js';
import { ADDRESSING_FLAGS, JSON_FLAG } from '../../drafts/cli-flags.js';
import { addToList } from '../../drafts/mutate.js';
import { writeFieldValue } from '../../render/write-result.js';

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
  run: (ctx) => writeFieldValue(ctx, addToList),
});
