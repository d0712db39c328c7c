import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { generatedUsage } from '../../cli/usage.js';
import { HandoffCommand } from '../../cli/base-command.js';
import type { CommandContext, CommandResult } from '../../cli/command.js';
import { ADDRESSING_FLAGS, EXPLAIN_FLAG, JSON_FLAG, WRITE_TARGET_HELP } from '../../cli/flags.js';
import { writeAddValue } from '../../cli/write-verbs.js';

export default class ContractAdd extends HandoffCommand {
  static override summary = 'Append one entry to a list of the draft';
  static override description = [
    'Extends the list at FIELD by one entry: an absent or null value becomes [VALUE]; any other existing value is',
    'refused (NOT_A_LIST). A JSON array VALUE is refused (ADD_LIST_VALUE): pass --each to append each of its elements',
    'as its own entry, in order. VALUE is parsed as for `set`. The whole envelope is validated; a rejected write',
    'stores nothing.',
    WRITE_TARGET_HELP,
  ].join(' ');
  static override flags = {
    each: Flags.boolean({ description: 'VALUE is a JSON array: append each element as its own entry, in order' }),
    ...ADDRESSING_FLAGS,
    explain: EXPLAIN_FLAG,
    json: JSON_FLAG,
  };
  static override args = {
    FIELD: Args.string({
      required: true,
      description: 'Dotted path of a list, e.g. evidence_report.commands_run',
      ignoreStdin: true,
    }),
    VALUE: Args.string({ required: true, description: 'JSON value, or any other text as a string', ignoreStdin: true }),
  };
  static override examples = [
    'handoff contract add evidence_report.files_checked src/payments.ts --draft-id a0123456789abcdef.0123456789ab',
    'handoff contract add evidence_report.commands_run "npm test" --draft-id a0123456789abcdef.0123456789ab',
    `handoff contract add evidence_report.files_checked '["a.ts","b.ts"]' --each --draft-id a0123456789abcdef.0123456789ab`,
  ];
  static override usage = generatedUsage(this);

  protected perform(ctx: CommandContext): Promise<CommandResult> | CommandResult {
    return writeAddValue(ctx);
  }
}
