import * as Flags from '@oclif/core/flags';
import { generatedUsage } from '../../cli/usage.js';
import { HandoffCommand } from '../../cli/base-command.js';
import type { CommandContext, CommandResult } from '../../cli/command.js';
import { ADDRESSING_FLAGS, EXPLAIN_FLAG, WRITE_TARGET_HELP } from '../../cli/flags.js';
import { readJsonObjectFlag } from '../../cli/json-input.js';
import { addressingFrom } from '../../drafts/cli-flags.js';
import { applyMergePatch } from '../../drafts/patch.js';
import { writeAndRender } from '../../cli/write-verbs.js';

export default class ContractPatch extends HandoffCommand {
  static override summary = 'Apply an RFC 7396 merge patch to the draft (null removes a key)';
  static override description = [
    'Applies a JSON merge patch (RFC 7396) to the draft: objects merge, arrays replace whole, and null REMOVES the key',
    '(fill stores null instead). This is how a block written by mistake is taken out again. The result is validated',
    'like every write; a rejected patch stores nothing. agent_status.agent_id and the keys only the tool writes cannot',
    'be changed or removed (PATCH_FORBIDDEN). Like fill, --json is the patch and patch always prints one JSON object.',
    WRITE_TARGET_HELP,
  ].join(' ');
  static override examples = [
    `handoff contract patch --draft-id a0123456789abcdef.0123456789ab --json '{"approval_request":null}'`,
    `handoff contract patch --draft-id a0123456789abcdef.0123456789ab --json '{"evidence_report":{"open_gaps":["flaky test"]}}'`,
  ];
  static override jsonMode = 'always' as const;
  static override oneOf = [['json', 'json-file']];
  static override flags = {
    json: Flags.string({ helpValue: 'PATCH', description: 'The merge patch: a JSON object' }),
    'json-file': Flags.string({
      helpValue: 'PATH|-',
      description: 'Read the merge patch from a file, or `-` for stdin',
    }),
    ...ADDRESSING_FLAGS,
    explain: EXPLAIN_FLAG,
  };
  static override usage = generatedUsage(this);

  protected async perform(ctx: CommandContext): Promise<CommandResult> {
    const addressing = addressingFrom(ctx.flags);
    const patch = await readJsonObjectFlag(ctx, 'patch');
    return writeAndRender(ctx, addressing, (base, draftId) => applyMergePatch(base, patch, draftId));
  }
}
