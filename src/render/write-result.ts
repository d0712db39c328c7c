/**
 * Output of `set`, `add` and `fill`: the success object and line, the notices in their
 * fixed order ([ADOPTED], [CONTINUATION opened], [CANONICALIZED], [MIRROR SKIPPED]; [SANITIZED] was printed while
 * loading), or the validation rejection aimed at the chain tip.
 */
import type { CommandContext, CommandResult } from '../cli/command.js';
import { addressingFrom, explainFrom } from '../drafts/cli-flags.js';
import type { JsonObject } from '../envelope/vocabulary.js';
import { resolvedJson, type Addressing } from '../drafts/resolve.js';
import { foresightNotice } from '../drafts/foresight.js';
import { addVerbChange } from '../drafts/mutate.js';
import { notJsonNotice, parseFieldPath, parseValueArg } from '../drafts/value.js';
import { usage } from '../errors.js';
import { jsonTypeOf } from '../json.js';
import { writeDraft, type WriteOutcome, type WriteRequest } from '../drafts/write.js';
import { withAmbiguityRendering } from './ambiguity.js';
import { adoptedNotice, canonicalizedNotice, continuationNotice, mirrorSkippedNotice, sanitizedEntry } from './notices.js';
import { validationRejection, WRITE_REJECTED } from './rejection.js';

/**
 * `set` and `add`: FIELD and VALUE checked first (exit 2, before any file access), a [NOT JSON] notice for a VALUE
 * that looks like JSON but is stored as text, then `change` (setField / addToList) through the write pipeline.
 */
export function writeFieldValue(ctx: CommandContext, change: FieldChange, checkValue?: (value: unknown) => void): Promise<CommandResult> {
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
export function writeTypedFieldValue(ctx: CommandContext, change: FieldChange, value: unknown, checkValue: (value: unknown) => void): Promise<CommandResult> {
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
    throw usage(`--each needs a JSON array VALUE (got ${jsonTypeOf(value)}); each element is appended as its own entry`);
  }
}

/**
 * The write of `set`, `add`, `fill` (and `patch`): `apply` on the addressed draft, then the outcome rendered (or an
 * ambiguity). A rejection is short unless the verb was given --explain.
 */
export function writeAndRender(ctx: CommandContext, addressing: Addressing, apply: WriteRequest['apply']): Promise<CommandResult> {
  return withAmbiguityRendering(async () => {
    const outcome = await writeDraft({ env: ctx.env, cwd: ctx.cwd, addressing, apply, notice: ctx.notice });
    return renderWriteOutcome(outcome, ctx.notice, explainFrom(ctx.flags));
  });
}

export function renderWriteOutcome(outcome: WriteOutcome, notice: (line: string) => void, explain = false): CommandResult {
  const sanitized = outcome.sanitized.length > 0 ? { sanitized: outcome.sanitized.map(sanitizedEntry) } : {};
  if (outcome.kind === 'rejected') {
    return validationRejection({
      subject: { draft_id: outcome.draftId },
      verdict: outcome.verdict,
      header: WRITE_REJECTED(outcome.draftId),
      extra: { ...sanitized, ...resolvedJson(outcome.resolved) },
      explain,
    });
  }
  if (outcome.adopted) notice(adoptedNotice(outcome.draftId));
  if (outcome.continuation) notice(continuationNotice(outcome.continuation));
  for (const c of outcome.canonicalized) notice(canonicalizedNotice(c));
  const skipped = mirrorSkippedNotice(outcome.draftId, outcome.mirror.outcome, outcome.mirror.message);
  if (skipped !== undefined) notice(skipped);
  for (const w of outcome.warnings) notice(foresightNotice(w));

  const mirrored = outcome.mirror.outcome === 'mirrored';
  const c = outcome.continuation;
  const json: Record<string, unknown> = {
    status: 'ok',
    draft_id: outcome.draftId,
    mirrored,
    ...(mirrored ? {} : { mirror_skipped_reason: outcome.mirror.outcome }),
    ...(outcome.adopted ? { adopted: true } : {}),
    ...(c
      ? {
          continuation: {
            status: c.status,
            contract_id: c.contract_id,
            handoff_id: c.handoff_id,
            continues_contract_id: c.continues_contract_id,
            continues_handoff_id: c.continues_handoff_id,
            continues_state: c.closedState,
          },
        }
      : {}),
    ...(outcome.canonicalized.length > 0
      ? { canonicalized: outcome.canonicalized.map((ch) => ({ path: ch.path, from: ch.from, to: ch.to })) }
      : {}),
    ...sanitized,
    ...(outcome.warnings.length > 0 ? { warnings: outcome.warnings.map((w) => ({ code: w.code, detail: w.detail })) } : {}),
    ...resolvedJson(outcome.resolved),
  };
  return { json, text: `OK: draft ${outcome.draftId} updated and valid.` };
}
