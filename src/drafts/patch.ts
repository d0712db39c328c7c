/**
 * `contract patch`: an RFC 7396 merge patch applied to the draft with json-merge-patch: `null`
 * removes a key, objects merge, arrays replace (no FILL_LIST_COLLISION). Pure; the input is never mutated (the
 * library's `apply` mutates its target, so it gets a deep copy, and it stops at prototype keys, so those are refused
 * before it runs).
 */
import mergePatch from 'json-merge-patch';
import { HandoffError } from '../errors.js';
import { SYSTEM_ROOT_KEYS, type JsonObject } from '../envelope/vocabulary.js';
import { cloneJson, getOwn, isPlainObject } from './mutate.js';

const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

const forbidden = (draftId: string, message: string, data: Record<string, unknown>): HandoffError =>
  new HandoffError('PATCH_FORBIDDEN', `${message}; nothing was written`, { draft_id: draftId, ...data });

/** The dotted path of the first `__proto__` / `constructor` / `prototype` key in `value`, depth first. */
function prototypeKeyPath(value: unknown): string | undefined {
  const stack: { v: unknown; path: string }[] = [{ v: value, path: '' }];
  while (stack.length > 0) {
    const { v, path } = stack.pop()!;
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], path: `${path}[${i}]` });
    } else if (isPlainObject(v)) {
      const keys = Object.keys(v);
      for (const k of keys) if (PROTOTYPE_KEYS.has(k)) return path === '' ? k : `${path}.${k}`;
      for (let i = keys.length - 1; i >= 0; i--)
        stack.push({ v: v[keys[i]], path: path === '' ? keys[i] : `${path}.${keys[i]}` });
    }
  }
  return undefined;
}

const agentIdOf = (envelope: JsonObject): string | undefined => {
  const status = getOwn(envelope, 'agent_status');
  return isPlainObject(status) ? JSON.stringify(getOwn(status, 'agent_id')) : undefined;
};

/** The patched envelope, or PATCH_FORBIDDEN (exit 1) when the patch would touch what no writer may touch. */
export function applyMergePatch(base: JsonObject, patch: JsonObject, draftId: string): JsonObject {
  const protoPath = prototypeKeyPath(patch);
  if (protoPath !== undefined) {
    throw forbidden(
      draftId,
      `the patch contains the key path ${JSON.stringify(protoPath)}, which no envelope may hold`,
      { path: protoPath },
    );
  }
  const patched = mergePatch.apply(cloneJson(base), patch) as unknown;
  if (!isPlainObject(patched)) throw forbidden(draftId, 'the patch would replace the whole envelope', { path: '' });
  if (agentIdOf(patched) !== agentIdOf(base)) {
    throw forbidden(
      draftId,
      'the patch would remove or change agent_status.agent_id, which is fixed when the draft is created',
      {
        path: 'agent_status.agent_id',
      },
    );
  }
  for (const key of SYSTEM_ROOT_KEYS) {
    if (JSON.stringify(getOwn(patched, key)) !== JSON.stringify(getOwn(base, key))) {
      throw forbidden(draftId, `the patch would change ${key}, a key only the tool writes`, { path: key });
    }
  }
  return patched;
}
