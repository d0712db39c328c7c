import * as Args from '@oclif/core/args';
import { generatedUsage } from '../../cli/usage.js';
import { HandoffCommand } from '../../cli/base-command.js';
import type { CommandContext, CommandResult } from '../../cli/command.js';
import { ADDRESSING_FLAGS, EXPLAIN_FLAG, JSON_FLAG, WRITE_TARGET_HELP } from '../../cli/flags.js';
import { setField } from '../../drafts/mutate.js';
import { writeFieldValue } from '../../cli/write-verbs.js';

export default class ContractSet extends HandoffCommand {
  static override summary = 'Set one field of the draft (replaces lists)';
  static override description = [
    'Assigns VALUE at the dotted FIELD path, replacing what is there; `set` is how a list is corrected or cleared',
    "(set evidence_report.open_gaps '[]'). VALUE is stored as JSON when it parses as strict JSON, else as the string",
    'given. A VALUE starting with `-` must follow `--`. Lists are never indexed. The whole envelope is validated;',
    'a rejected write stores nothing.',
    WRITE_TARGET_HELP,
  ].join(' ');
  static override flags = {
    ...ADDRESSING_FLAGS,
    explain: EXPLAIN_FLAG,
    json: JSON_FLAG,
  };
  static override args = {
    FIELD: Args.string({
      required: true,
      description: 'Dotted path, e.g. agent_status.next_action',
      ignoreStdin: true,
    }),
    VALUE: Args.string({ required: true, description: 'JSON value, or any other text as a string', ignoreStdin: true }),
  };
  static override examples = [
    'handoff contract set agent_status.next_action "run the integration tests" --draft-id a0123456789abcdef.0123456789ab',
    "handoff contract set evidence_report.open_gaps '[]' --draft-id a0123456789abcdef.0123456789ab --json",
  ];
  static override usage = generatedUsage(this);

  protected perform(ctx: CommandContext): Promise<CommandResult> | CommandResult {
    return writeFieldValue(ctx, setField);
  }
}
