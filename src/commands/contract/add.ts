import { defineCommand } from '../../cli/command.js';
import { ADDRESSING_FLAGS, EXPLAIN_FLAG, JSON_FLAG } from '../../drafts/cli-flags.js';
import { writeAddValue } from '../../render/write-result.js';

export default defineCommand({
  id: 'contract add',
  summary: 'Append one entry to a list of the draft',
  usage: 'handoff contract add FIELD VALUE [--each] [--draft-id ID] [--agent-id ID] [--explain] [--json]',
  description: [
    'Extends the list at FIELD by one entry: an absent or null value becomes [VALUE]; any other existing value is',
    'refused (NOT_A_LIST). A JSON array VALUE is refused (ADD_LIST_VALUE): pass --each to append each of its elements',
    'as its own entry, in order. VALUE is parsed as for `set`. The whole envelope is validated; a rejected write',
    'stores nothing.',
  ].join('\n'),
  flags: {
    each: { type: 'boolean', description: 'VALUE is a JSON array: append each element as its own entry, in order' },
    ...ADDRESSING_FLAGS,
    explain: EXPLAIN_FLAG,
    json: JSON_FLAG,
  },
  args: [
    { name: 'FIELD', required: true, description: 'Dotted path of a list, e.g. evidence_report.commands_run' },
    { name: 'VALUE', required: true, description: 'JSON value, or any other text as a string' },
  ],
  run: (ctx) => writeAddValue(ctx),
});
