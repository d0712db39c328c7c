import { defineCommand } from '../../cli/command.js';
import { ADDRESSING_FLAGS, EXPLAIN_FLAG, JSON_FLAG } from '../../drafts/cli-flags.js';
import { setField } from '../../drafts/mutate.js';
import { writeFieldValue } from '../../render/write-result.js';

export default defineCommand({
  id: 'contract set',
  summary: 'Set one field of the draft (replaces lists)',
  usage: 'handoff contract set FIELD VALUE [--draft-id ID] [--agent-id ID] [--explain] [--json]',
  description: [
    'Assigns VALUE at the dotted FIELD path, replacing what is there; `set` is how a list is corrected or cleared',
    "(set evidence_report.open_gaps '[]'). VALUE is stored as JSON when it parses as strict JSON, else as the string",
    'given. A VALUE starting with `-` must follow `--`. Lists are never indexed. The whole envelope is validated;',
    'a rejected write stores nothing.',
  ].join('\n'),
  flags: { ...ADDRESSING_FLAGS, explain: EXPLAIN_FLAG, json: JSON_FLAG },
  args: [
    { name: 'FIELD', required: true, description: 'Dotted path, e.g. agent_status.next_action' },
    { name: 'VALUE', required: true, description: 'JSON value, or any other text as a string' },
  ],
  run: (ctx) => writeFieldValue(ctx, setField),
});
