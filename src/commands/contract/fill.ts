import { defineCommand } from '../../cli/command.js';
import { readInput } from '../../cli/input.js';
import { EXIT, HandoffError, usage } from '../../errors.js';
import { ADDRESSING_FLAGS, addressingFrom, EXPLAIN_FLAG, stringFlag } from '../../drafts/cli-flags.js';
import { applyFill } from '../../drafts/fill.js';
import { isPlainObject } from '../../drafts/mutate.js';
import { exceedsDepth, jsonTypeOf, parseJsonStrict, tooDeep } from '../../json.js';
import { writeAndRender } from '../../render/write-result.js';

const USAGE = 'handoff contract fill (--json PATCH | --json-file PATH|-) [--draft-id ID] [--agent-id ID] [--explain]';

export default defineCommand({
  id: 'contract fill',
  summary: 'Merge a JSON patch into the draft (fills empty lists only)',
  usage: USAGE,
  description: [
    'Merges a JSON object into the draft key by key: objects merge recursively, any other value (null included)',
    'replaces. A list that already has entries may only be re-sent unchanged (else FILL_LIST_COLLISION): extend it',
    'with `add`, replace or clear it with `set`. --json is the patch, not an output switch: fill always prints one',
    'JSON object. Use --json-file (or `-` for stdin) for long prose.',
  ].join('\n'),
  alwaysJson: true,
  flags: {
    json: { type: 'string', valueName: 'PATCH', description: 'The patch: a JSON object' },
    'json-file': { type: 'string', valueName: 'PATH', description: 'Read the patch from a file, or `-` for stdin' },
    ...ADDRESSING_FLAGS,
    explain: EXPLAIN_FLAG,
  },
  async run(ctx) {
    const addressing = addressingFrom(ctx.flags);
    const inline = stringFlag(ctx.flags, 'json');
    const file = stringFlag(ctx.flags, 'json-file');
    if ((inline === undefined) === (file === undefined)) {
      throw usage(`exactly one of --json PATCH and --json-file PATH is required`);
    }
    const text = inline ?? (await readInput(file ?? '-', ctx.readStdin)).toString('utf8');
    const patch = parseJsonStrict(text, inline !== undefined ? 'the --json patch' : `the patch in ${file === '-' ? 'stdin' : file}`);
    if (!isPlainObject(patch)) {
      throw new HandoffError('PATCH_NOT_OBJECT', EXIT.USAGE, `the patch must be a JSON object, got ${jsonTypeOf(patch)}`, {
        type: jsonTypeOf(patch),
      });
    }
    if (exceedsDepth(patch)) throw tooDeep('the patch');
    return writeAndRender(ctx, addressing, (base, draftId) => applyFill(base, patch, draftId));
  },
});
