/** The JSON object input of `fill` and `patch`: `--json TEXT`, or `--json-file PATH` (`-` for stdin), exactly one. */
import { EXIT, HandoffError, usage } from '../errors.js';
import type { JsonObject } from '../envelope/vocabulary.js';
import { isPlainObject } from '../drafts/mutate.js';
import { exceedsDepth, jsonTypeOf, parseJsonStrict, tooDeep } from '../json.js';
import type { CommandContext } from './command.js';
import { readInput } from './input.js';

/** Reads, parses and checks the object (`what`: "patch"); USAGE / INVALID_JSON / PATCH_NOT_OBJECT, exit 2. */
export async function readJsonObjectFlag(ctx: CommandContext, what: string): Promise<JsonObject> {
  const inline = typeof ctx.flags.json === 'string' ? ctx.flags.json : undefined;
  const file = typeof ctx.flags['json-file'] === 'string' ? ctx.flags['json-file'] : undefined;
  if ((inline === undefined) === (file === undefined)) {
    throw usage(`exactly one of --json ${what.toUpperCase()} and --json-file PATH is required`);
  }
  const text = inline ?? (await readInput(file ?? '-', ctx.readStdin)).toString('utf8');
  return checkJsonObject(parseJsonStrict(text, inline !== undefined ? `the --json ${what}` : `the ${what} in ${file === '-' ? 'stdin' : file}`), what);
}

/** A parsed `what` ("patch") must be a JSON object (PATCH_NOT_OBJECT) the store can hold (VALUE_NOT_REPRESENTABLE); exit 2. */
export function checkJsonObject(value: unknown, what: string): JsonObject {
  if (!isPlainObject(value)) {
    throw new HandoffError('PATCH_NOT_OBJECT', EXIT.USAGE, `the ${what} must be a JSON object, got ${jsonTypeOf(value)}`, {
      type: jsonTypeOf(value),
    });
  }
  if (exceedsDepth(value)) throw tooDeep(`the ${what}`);
  return value;
}
