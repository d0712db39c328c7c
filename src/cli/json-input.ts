/**
 * The JSON object input of `fill` and `patch`: exactly one of `--json TEXT` and
 * `--json-file PATH|-`, refused from its size before it is parsed when it is larger than HANDOFF_MAX_ENVELOPE_BYTES
 * (a 1,000,000-key patch cost 12 s and 765 MB to parse), then strict JSON, an object, within
 * the depth bound. Every refusal is exit 2 and comes before any draft or store access.
 */
import { HandoffError, usage } from '../errors.js';
import type { JsonObject } from '../envelope/vocabulary.js';
import { envelopeTooLarge } from '../drafts/errors.js';
import { isPlainObject } from '../drafts/mutate.js';
import { exceedsDepth, jsonTypeOf, parseJsonStrict, tooDeep } from '../json.js';
import { maxEnvelopeBytes } from '../paths.js';
import type { CommandContext } from './command.js';
import { checkRegularFile, decodeUtf8, readInput } from '../input/files.js';

/**
 * Reads, size-checks, parses and checks the object (`what`: "patch"). USAGE, UNREADABLE_INPUT, INPUT_NOT_REGULAR,
 * ENVELOPE_TOO_LARGE, INVALID_UTF8, INVALID_JSON, VALUE_NOT_REPRESENTABLE, PATCH_NOT_OBJECT.
 */
export async function readJsonObjectFlag(ctx: CommandContext, what: string): Promise<JsonObject> {
  const inline = typeof ctx.flags.json === 'string' ? ctx.flags.json : undefined;
  const file = typeof ctx.flags['json-file'] === 'string' ? ctx.flags['json-file'] : undefined;
  if ((inline === undefined) === (file === undefined)) {
    throw usage(`exactly one of --json ${what.toUpperCase()} and --json-file PATH is required`);
  }
  const limit = maxEnvelopeBytes(ctx.env);
  const source = inline !== undefined ? `the --json ${what}` : `the ${what} in ${file === '-' ? 'stdin' : file}`;
  let bytes: Buffer | undefined;
  if (inline !== undefined) {
    const size = Buffer.byteLength(inline, 'utf8');
    if (size > limit) throw envelopeTooLarge(source, size, limit);
  } else {
    // A file's size decides before a byte of it is read.
    if (file !== '-') {
      const size = checkRegularFile(file!, ctx.cwd);
      if (size > limit) throw envelopeTooLarge(source, size, limit);
    }
    bytes = await readInput(file!, ctx.cwd, ctx.readStdin);
    if (bytes.length > limit) throw envelopeTooLarge(source, bytes.length, limit);
  }
  return checkJsonObject(parseJsonStrict(inline ?? decodeUtf8(bytes!, source), source, inline !== undefined), what);
}

/** A parsed `what` ("patch") must be a JSON object (PATCH_NOT_OBJECT) within the depth bound; exit 2. */
export function checkJsonObject(value: unknown, what: string): JsonObject {
  if (!isPlainObject(value)) {
    throw new HandoffError('PATCH_NOT_OBJECT', `the ${what} must be a JSON object, got ${jsonTypeOf(value)}`, {
      type: jsonTypeOf(value),
    });
  }
  if (exceedsDepth(value)) throw tooDeep(`the ${what}`);
  return value;
}
