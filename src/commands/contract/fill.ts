import { defineCommand } from '../../cli/command.js';
import { ADDRESSING_FLAGS, addressingFrom, stringFlag } from '../../drafts/cli-flags.js';
import { applyFill } from '../../drafts/fill.js';
import { readPatch } from '../../drafts/patch-input.js';
import { writeAndRender } from '../../render/write-result.js';

const USAGE = 'handoff contract fill (--json PATCH | --json-file PATH|-) [--draft-id ID] [--agent-id ID]';

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
  },
  async run(ctx) {
    const addressing = addressingFrom(ctx.flags);
    const patch = await readPatch({
      inline: stringFlag(ctx.flags, 'json'),
      file: stringFlag(ctx.flags, 'json-file'),
      readStdin: ctx.readStdin,
      env: ctx.env,
    });
    return writeAndRender(ctx, addressing, (base, draftId) => applyFill(base, patch, draftId));
  },
});
