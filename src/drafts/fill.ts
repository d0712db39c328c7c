/**
 * `fill`: the key-by-key merge (not RFC 7386: null stores null, arrays replace) and
 * the list rule "fill writes a list only while it is empty". Pure; the input is never mutated.
 */
import { HandoffError } from '../errors.js';
import type { JsonObject } from '../envelope/vocabulary.js';
import { jsonTypeOf } from '../json.js';
import { cloneJson, defineOwn, getOwn, hasOwn, isPlainObject } from './mutate.js';

/** Merges `patch` into a copy of `base`: objects recurse, anything else replaces; new keys are appended. */
export function mergePatch(base: JsonObject, patch: JsonObject): JsonObject {
  const out = cloneJson(base);
  mergeInto(out, patch);
  return out;
}

function mergeInto(target: JsonObject, patch: JsonObject): void {
  for (const key of Object.keys(patch)) {
    const incoming = patch[key];
    const current = getOwn(target, key);
    if (isPlainObject(incoming) && isPlainObject(current)) mergeInto(current, incoming);
    else defineOwn(target, key, cloneJson(incoming));
  }
}

export interface ListCollision {
  path: string;
  existing: number;
  incoming: number | null;
  incoming_type: string;
}

/**
 * Every populated list of `base` (a non-empty array reached from the root through objects only) must be
 * byte-identical (JSON text) at the same path of `merged`; anything else is a collision. Arrays inside list elements
 * belong to their element and are not screened.
 */
export function findListCollisions(base: JsonObject, merged: JsonObject): ListCollision[] {
  const collisions: ListCollision[] = [];
  const walk = (obj: JsonObject, path: string[]): void => {
    for (const key of Object.keys(obj)) {
      const value = obj[key];
      const here = [...path, key];
      if (isPlainObject(value)) walk(value, here);
      else if (Array.isArray(value) && value.length > 0) {
        const after = lookup(merged, here);
        if (JSON.stringify(after) !== JSON.stringify(value)) {
          collisions.push({
            path: here.join('.'),
            existing: value.length,
            incoming: Array.isArray(after) ? after.length : null,
            incoming_type: jsonTypeOf(after),
          });
        }
      }
    }
  };
  walk(base, []);
  return collisions;
}

/** The value at `path` walking objects only; undefined when a key is missing or a non-object is on the way. */
function lookup(root: JsonObject, path: string[]): unknown {
  let cur: unknown = root;
  for (const key of path) {
    if (!isPlainObject(cur) || !hasOwn(cur, key)) return undefined;
    cur = cur[key];
  }
  return cur;
}

export function listCollisionError(draftId: string, collisions: ListCollision[]): HandoffError {
  const paths = collisions.map((c) => c.path).join(', ');
  return new HandoffError(
    'FILL_LIST_COLLISION',
    `fill would change populated list${collisions.length > 1 ? 's' : ''} ${paths}; nothing was written. fill only fills empty lists: extend a list with \`handoff contract add\`, replace or clear it with \`handoff contract set\``,
    { draft_id: draftId, collisions },
  );
}

/** The whole `fill` change: merge, then refuse the fill whole on any collision. */
export function applyFill(base: JsonObject, patch: JsonObject, draftId: string): JsonObject {
  const merged = mergePatch(base, patch);
  const collisions = findListCollisions(base, merged);
  if (collisions.length > 0) throw listCollisionError(draftId, collisions);
  return merged;
}
