/**
 * The JSON input of `fill` (cli-contract-drafts.md §13.1): exactly one of `--json PATCH` and `--json-file PATH|-`,
 * refused from its size before it is parsed when it is larger than HANDOFF_MAX_ENVELOPE_BYTES (amendments-2.md §H9:
 * a 1,000,000-key patch cost 12 s and 765 MB to parse), then strict JSON, an object, within the depth bound. Every
 * refusal is exit 2 and comes before any draft or store access.
 */
import { checkRegularFile, readInput } from '../cli/input.js';
import type { JsonObject } from '../envelope/vocabulary.js';
import { EXIT, HandoffError, usage } from '../errors.js';
import { exceedsDepth, jsonTypeOf, parseJsonStrict, tooDeep } from '../json.js';
import { maxEnvelopeBytes, type Env } from '../paths.js';
import { envelopeTooLarge } from './errors.js';
import { isPlainObject } from './mutate.js';

export interface PatchSource {
  /** `--json PATCH`. */
  inline?: string;
  /** `--json-file PATH`, `-` for stdin. */
  file?: string;
  readStdin: () => Promise<Buffer>;
  env: Env;
}

/** Reads, size-checks and parses the patch. USAGE, UNREADABLE_INPUT, INPUT_NOT_REGULAR, ENVELOPE_TOO_LARGE, INVALID_JSON, VALUE_NOT_REPRESENTABLE, PATCH_NOT_OBJECT. */
export async function readPatch(src: PatchSource): Promise<JsonObject> {
  const { inline, file } = src;
  if ((inline === undefined) === (file === undefined)) throw usage('exactly one of --json PATCH and --json-file PATH is required');
  const limit = maxEnvelopeBytes(src.env);
  const what = inline !== undefined ? 'the --json patch' : `the patch in ${file === '-' ? 'stdin' : file}`;
  let bytes: Buffer | undefined;
  if (inline !== undefined) {
    const size = Buffer.byteLength(inline, 'utf8');
    if (size > limit) throw envelopeTooLarge(what, size, limit);
  } else if (file !== '-') {
    // The file's size decides before a byte of it is read.
    const size = checkRegularFile(file!);
    if (size > limit) throw envelopeTooLarge(what, size, limit);
  }
  if (inline === undefined) {
    bytes = await readInput(file!, src.readStdin);
    if (bytes.length > limit) throw envelopeTooLarge(what, bytes.length, limit);
  }
  const patch = parseJsonStrict(inline ?? bytes!.toString('utf8'), what);
  if (!isPlainObject(patch)) {
    throw new HandoffError('PATCH_NOT_OBJECT', EXIT.USAGE, `the patch must be a JSON object, got ${jsonTypeOf(patch)}`, {
      type: jsonTypeOf(patch),
    });
  }
  if (exceedsDepth(patch)) throw tooDeep('the patch');
  return patch;
}
