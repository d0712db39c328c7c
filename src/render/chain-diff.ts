/**
 * `contract chain --diff`: each step of a continuation chain as the RFC 7396 merge patch
 * (json-merge-patch's `generate`) from the previous stored envelope to the next; the first step starts from `{}`.
 * A merge patch cannot say "set to null" (null means remove), so each step also lists the dotted paths whose new value
 * is null.
 */
import mergePatch from 'json-merge-patch';
import { isPlainObject } from '../drafts/mutate.js';

export interface DiffStep {
  handoff_id: number;
  contract_id: string;
  patch: unknown;
  null_paths: string[];
}

/** The dotted paths (objects only; arrays are values) where `after` holds null and `before` did not. */
function nullPaths(before: unknown, after: unknown, prefix: string, out: string[]): void {
  if (!isPlainObject(after)) return;
  for (const key of Object.keys(after)) {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    const was = isPlainObject(before) && Object.hasOwn(before, key) ? before[key] : undefined;
    const now = after[key];
    if (now === null) {
      if (was !== null) out.push(path);
    } else if (isPlainObject(now)) nullPaths(was, now, path, out);
  }
}

/** One step per row, in chain order; `envelopes[i]` is row i's stored envelope. */
export function chainDiff(
  rows: readonly { id: number; contract_id: string }[],
  envelopes: readonly unknown[],
): DiffStep[] {
  let previous: unknown = {};
  return rows.map((row, i) => {
    const next = envelopes[i];
    const patch: unknown = mergePatch.generate(previous, next) ?? {};
    const paths: string[] = [];
    nullPaths(previous, next, '', paths);
    previous = next;
    return { handoff_id: row.id, contract_id: row.contract_id, patch, null_paths: paths };
  });
}
