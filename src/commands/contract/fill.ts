import * as Flags from '@oclif/core/flags';
import { generatedUsage } from '../../cli/usage.js';
import { HandoffCommand } from '../../cli/base-command.js';
import type { CommandContext, CommandResult } from '../../cli/command.js';
import { ADDRESSING_FLAGS, EXPLAIN_FLAG, WRITE_TARGET_HELP } from '../../cli/flags.js';
import { readJsonObjectFlag } from '../../cli/json-input.js';
import { addressingFrom } from '../../drafts/cli-flags.js';
import { applyFill } from '../../drafts/fill.js';
import { writeAndRender } from '../../cli/write-verbs.js';

export default class ContractFill extends HandoffCommand {
  static override summary = 'Merge a JSON patch into the draft (fills empty lists only)';
  static override description = [
    'Merges a JSON object into the draft key by key: objects merge recursively, any other value (null included)',
    'replaces. A list that already has entries may only be re-sent unchanged (else FILL_LIST_COLLISION): extend it',
    'with `add`, replace or clear it with `set`, or remove a key with `patch`. --json is the patch, not an output',
    'switch: fill always prints one JSON object. Use --json-file (or `-` for stdin) for long prose.',
    WRITE_TARGET_HELP,
  ].join(' ');
  static override examples = [
    `handoff contract fill --draft-id a0123456789abcdef.0123456789ab --json '{"work_phase":"executing","evidence_report":{"commands_run":["npm test"]}}'`,
    'handoff contract fill --draft-id a0123456789abcdef.0123456789ab --json-file report.json',
  ];
  static override jsonMode = 'always' as const;
  static override oneOf = [['json', 'json-file']];
  static override flags = {
    json: Flags.string({ helpValue: 'PATCH', description: 'The patch: a JSON object' }),
    'json-file': Flags.string({ helpValue: 'PATH|-', description: 'Read the patch from a file, or `-` for stdin' }),
    ...ADDRESSING_FLAGS,
    explain: EXPLAIN_FLAG,
  };
  static override usage = generatedUsage(this);

  protected async perform(ctx: CommandContext): Promise<CommandResult> {
    const addressing = addressingFrom(ctx.flags);
    const patch = await readJsonObjectFlag(ctx, 'patch');
    return writeAndRender(ctx, addressing, (base, draftId) => applyFill(base, patch, draftId));
  }
}
