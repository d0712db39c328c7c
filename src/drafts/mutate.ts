/**
 * `set` and `add` on an envelope and the read-only walk of `view --field`
 *. Every key is an own data property: `__proto__`, `constructor` and `prototype` are ordinary keys, written
 * with Object.defineProperty and read only when own, so no object prototype is ever read through or touched.
 * Inputs are never mutated: each write returns a changed deep copy.
 */
import { jsonTypeName, type JsonObject } from '../envelope/vocabulary.js';
import { addListValue, fieldNotFound, notAList, pathNotObject } from './errors.js';

export const isPlainObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

export const hasOwn = (obj: object, key: string): boolean => Object.prototype.hasOwnProperty.call(obj, key);

export const getOwn = (obj: JsonObject, key: string): unknown => (hasOwn(obj, key) ? obj[key] : undefined);

/** Sets an own data property; an existing key keeps its position, a new key is appended at the end. */
export function defineOwn(obj: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
}

/** Removes an own property (a key removed and re-added goes to the end, as key order requires). */
export function deleteOwn(obj: JsonObject, key: string): void {
  if (hasOwn(obj, key)) Reflect.deleteProperty(obj, key);
}

/** Deep copy of a JSON value. JSON.parse creates `__proto__` as an own key, so such keys survive the copy. */
export const cloneJson = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/**
 * Walks to the parent object of the last segment, creating `{}` for an absent or null intermediate; any other
 * non-object on the way → PATH_NOT_OBJECT (exit 1) naming the walked path and the JSON type found.
 */
function walkToParent(root: JsonObject, segments: string[], draftId: string): JsonObject {
  let cur = root;
  for (let i = 0; i < segments.length - 1; i++) {
    const key = segments[i];
    const next = getOwn(cur, key);
    if (next === undefined || next === null) {
      const created: JsonObject = {};
      defineOwn(cur, key, created);
      cur = created;
    } else if (isPlainObject(next)) {
      cur = next;
    } else {
      throw pathNotObject(draftId, segments.slice(0, i + 1).join('.'), jsonTypeName(next));
    }
  }
  return cur;
}

/** `set`: assigns VALUE at FIELD, replacing whatever is there (lists included). */
export function setField(envelope: JsonObject, segments: string[], value: unknown, draftId: string): JsonObject {
  const copy = cloneJson(envelope);
  const parent = walkToParent(copy, segments, draftId);
  defineOwn(parent, segments[segments.length - 1], cloneJson(value));
  return copy;
}

/**
 * Appends `entries` to the list at FIELD: absent or null → a new list; a list grows; anything else → NOT_A_LIST.
 * `check` runs once the target is known to be a list (the `add` verb's ADD_LIST_VALUE refusal).
 */
function appendEntries(
  envelope: JsonObject,
  segments: string[],
  entries: readonly unknown[],
  draftId: string,
  check?: () => void,
): JsonObject {
  const copy = cloneJson(envelope);
  const parent = walkToParent(copy, segments, draftId);
  const key = segments[segments.length - 1];
  const current = getOwn(parent, key);
  if (current !== undefined && current !== null && !Array.isArray(current))
    throw notAList(draftId, segments.join('.'), jsonTypeName(current));
  check?.();
  const list = Array.isArray(current) ? current : [];
  for (const entry of entries) list.push(cloneJson(entry));
  if (list !== current) defineOwn(parent, key, list);
  return copy;
}

/** One entry appended: absent or null → `[VALUE]`; a list → VALUE appended (an array VALUE as one entry); else NOT_A_LIST. */
export function addToList(envelope: JsonObject, segments: string[], value: unknown, draftId: string): JsonObject {
  return appendEntries(envelope, segments, [value], draftId);
}

/**
 * The `add` verb. Without `each`, a JSON array VALUE
 * is refused (ADD_LIST_VALUE, exit 1): appending it would nest it as one entry, which is almost never meant. With
 * `each`, VALUE is an array (checked by the caller) whose elements are appended in order.
 */
export const addVerbChange =
  (each: boolean) =>
  (envelope: JsonObject, segments: string[], value: unknown, draftId: string): JsonObject => {
    if (each) return appendEntries(envelope, segments, value as unknown[], draftId);
    const refuse = Array.isArray(value)
      ? (): never => {
          throw addListValue(draftId, segments.join('.'), value.length);
        }
      : undefined;
    return appendEntries(envelope, segments, [value], draftId, refuse);
  };

/** `view --field`: walks objects only (no list indexing); a missing key or a non-object on the way → FIELD_NOT_FOUND. */
export function readField(envelope: JsonObject, segments: string[]): unknown {
  let cur: unknown = envelope;
  for (let i = 0; i < segments.length; i++) {
    const key = segments[i];
    if (!isPlainObject(cur) || !hasOwn(cur, key)) {
      throw fieldNotFound(segments.join('.'), key, i === 0 ? '(root)' : segments.slice(0, i).join('.'));
    }
    cur = cur[key];
  }
  return cur;
}
