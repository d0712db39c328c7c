/**
 * The write verbs' shared step (`set`, `add`, `fill`, `patch` and their MCP tools): FIELD, VALUE and the ids checked
 * before any file access, the write through the draft pipeline, then its outcome rendered (src/render/write-result.ts)
 * and its notices printed.
 */
import type { CommandContext, CommandResult } from './command.js';
import { addressingFrom, explainFrom } from '../drafts/cli-flags.js';
import type { JsonObject } from '../envelope/vocabulary.js';
import type { Addressing } from '../drafts/resolve.js';
import { addVerbChange } from '../drafts/mutate.js';
import { notJsonNotice, parseFieldPath, parseValueArg } from '../drafts/value.js';
import { usage } from '../errors.js';
import { jsonTypeOf } from '../json.js';
import { writeDraft, type WriteRequest } from '../drafts/write.js';
import { withAmbiguityRendering } from '../render/ambiguity.js';
import { renderWriteOutcome } from '../render/write-result.js';

/**
 * `set` and `add`: FIELD and VALUE checked first (exit 2, before any file access), a [NOT JSON] notice for a VALUE
 * that looks like JSON but is stored as text, then `change` (setField / addToList) through the write pipeline.
 */
export function writeFieldValue(
  ctx: CommandContext,
  change: FieldChange,
  checkValue?: (value: unknown) => void,
): Promise<CommandResult> {
  return writeField(ctx, change, () => {
    const raw = ctx.args.VALUE ?? '';
    const value = parseValueArg(raw);
    checkValue?.(value);
    const notJson = notJsonNotice(raw);
    if (notJson !== undefined) ctx.notice(notJson);
    return value;
  });
}

/**
 * `set` and `add` with a VALUE that arrived typed (the MCP tools): stored as given, never guessed at from text.
 * `checkValue` throws for a value the store cannot hold (VALUE_NOT_REPRESENTABLE), as parsing does for a VALUE.
 */
export function writeTypedFieldValue(
  ctx: CommandContext,
  change: FieldChange,
  value: unknown,
  checkValue: (value: unknown) => void,
): Promise<CommandResult> {
  return writeField(ctx, change, () => {
    checkValue(value);
    return value;
  });
}

type FieldChange = (base: JsonObject, segments: string[], value: unknown, draftId: string) => JsonObject;

/** The ids, then FIELD, then VALUE (exit 2, before any file access), then `change` through the write pipeline. */
function writeField(ctx: CommandContext, change: FieldChange, valueOf: () => unknown): Promise<CommandResult> {
  const addressing = addressingFrom(ctx.flags);
  const segments = parseFieldPath(ctx.args.FIELD ?? '');
  const value = valueOf();
  return writeAndRender(ctx, addressing, (base, draftId) => change(base, segments, value, draftId));
}

/** `add`: `--each` needs a JSON array VALUE (USAGE, exit 2, before any file access). */
export function writeAddValue(ctx: CommandContext): Promise<CommandResult> {
  const each = ctx.flags.each === true;
  return writeFieldValue(ctx, addVerbChange(each), each ? eachNeedsArray : undefined);
}

/** `--each` (the verb) or `each: true` (the MCP tool): the value must be a JSON array (USAGE, exit 2). */
export function eachNeedsArray(value: unknown): void {
  if (!Array.isArray(value)) {
    throw usage(
      `--each needs a JSON array VALUE (got ${jsonTypeOf(value)}); each element is appended as its own entry`,
    );
  }
}

/**
 * The write of `set`, `add`, `fill` (and `patch`): `apply` on the addressed draft, then the outcome rendered (or an
 * ambiguity). A rejection is short unless the verb was given --explain.
 */
export function writeAndRender(
  ctx: CommandContext,
  addressing: Addressing,
  apply: WriteRequest['apply'],
): Promise<CommandResult> {
  return withAmbiguityRendering(async () => {
    const outcome = await writeDraft({ env: ctx.env, cwd: ctx.cwd, addressing, apply, notice: ctx.notice });
    const { result, notices } = renderWriteOutcome(outcome, explainFrom(ctx.flags));
    for (const line of notices) ctx.notice(line);
    return result;
  });
}
