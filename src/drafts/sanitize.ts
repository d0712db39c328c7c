/**
 * Sanitization of an inherited base: the repairs `set`/`add`/`fill` (and finalize)
 * apply to a loaded or adopted envelope before the change, so a defect the writer cannot fix with one `set` (a key
 * of an older vocabulary, a hand-written wrong type) does not block every later write. Pure; returns a repaired copy
 * and one entry per repair, in the normative order. Not repaired: a string agent_id, failure_report, work_phase,
 * the contents of open objects (they surface as validation errors).
 */
import {
  ACCEPTED_KEYS,
  EVIDENCE_LISTS,
  HOMES,
  isCommit,
  isNonEmptyString,
  type JsonObject,
  type Level,
} from '../envelope/vocabulary.js';
import { cloneJson, defineOwn, deleteOwn, getOwn, hasOwn, isPlainObject } from './mutate.js';

export interface Repair {
  path: string;
  action: 'removed' | 'wrapped' | 'replaced' | 'flattened';
  /** For a removed misplaced key: the path where that key belongs. */
  home?: string;
  /** Human gist for the `[SANITIZED]` notice (not part of the JSON entry). */
  note: string;
}

/** The `[SANITIZED] <path>: <action>` notice line of one repair. */
export const sanitizedNotice = (r: Repair): string => `[SANITIZED] ${r.path}: ${r.note}`;

const prefixOf = (level: Level): string => (level === 'root' ? '' : `${level}.`);

/** Runs every repair in order on a copy of `envelope`. */
export function sanitizeEnvelope(envelope: JsonObject): { envelope: JsonObject; repairs: Repair[] } {
  const env = cloneJson(envelope);
  const repairs: Repair[] = [];
  removeUnacceptedKeys(env, repairs);
  wrapLists(env, repairs);
  replaceStatusStrings(env, repairs);
  removeWrongTypes(env, repairs);
  flattenFileReferences(env, repairs);
  return { envelope: env, repairs };
}

/** Repair 1: keys not accepted at the root, in agent_status or in evidence_report are removed (home named). */
function removeUnacceptedKeys(env: JsonObject, repairs: Repair[]): void {
  const levels: [Level, JsonObject | undefined][] = [
    ['root', env],
    ['agent_status', objectAt(env, 'agent_status')],
    ['evidence_report', objectAt(env, 'evidence_report')],
  ];
  for (const [level, obj] of levels) {
    if (obj === undefined) continue;
    for (const key of Object.keys(obj)) {
      if (ACCEPTED_KEYS[level].has(key)) continue;
      deleteOwn(obj, key);
      const homeLevel = HOMES.get(key);
      const home = homeLevel === undefined ? undefined : `${prefixOf(homeLevel)}${key}`;
      repairs.push({
        path: `${prefixOf(level)}${key}`,
        action: 'removed',
        ...(home === undefined ? {} : { home }),
        note: home === undefined ? 'removed (not a key of this level)' : `removed (misplaced; its home is ${home})`,
      });
    }
  }
}

/** Repair 2: pending_steps and the seven lower-case lists holding a non-null non-array are wrapped: x → [x]. */
function wrapLists(env: JsonObject, repairs: Repair[]): void {
  const wrap = (obj: JsonObject | undefined, level: Level, key: string): void => {
    if (obj === undefined || !hasOwn(obj, key)) return;
    const v = obj[key];
    if (v === null || Array.isArray(v)) return;
    defineOwn(obj, key, [v]);
    repairs.push({ path: `${prefixOf(level)}${key}`, action: 'wrapped', note: 'wrapped into a list' });
  };
  wrap(objectAt(env, 'agent_status'), 'agent_status', 'pending_steps');
  const evidence = objectAt(env, 'evidence_report');
  for (const list of EVIDENCE_LISTS) wrap(evidence, 'evidence_report', list);
}

/** Repairs 3–4: a non-null non-string agent_state / next_action is replaced by "IN_PROGRESS" / "pending". */
function replaceStatusStrings(env: JsonObject, repairs: Repair[]): void {
  const status = objectAt(env, 'agent_status');
  if (status === undefined) return;
  for (const [key, replacement] of [
    ['agent_state', 'IN_PROGRESS'],
    ['next_action', 'pending'],
  ] as const) {
    const v = getOwn(status, key);
    if (v === undefined || v === null || typeof v === 'string') continue;
    defineOwn(status, key, replacement);
    repairs.push({
      path: `agent_status.${key}`,
      action: 'replaced',
      note: `replaced by ${JSON.stringify(replacement)}`,
    });
  }
}

type Expect = 'object' | 'string';

/** Repair 5: any other declared field of the wrong type is removed. */
function removeWrongTypes(env: JsonObject, repairs: Repair[]): void {
  const check = (obj: JsonObject | undefined, path: string, key: string, expect: Expect): void => {
    if (obj === undefined || !hasOwn(obj, key)) return;
    const v = obj[key];
    if (v === null || (expect === 'object' ? isPlainObject(v) : typeof v === 'string')) return;
    deleteOwn(obj, key);
    repairs.push({
      path,
      action: 'removed',
      note: `removed (must be ${expect === 'object' ? 'an object' : 'a string'})`,
    });
  };
  check(env, 'agent_status', 'agent_status', 'object');
  check(env, 'evidence_report', 'evidence_report', 'object');
  check(env, 'consolidation_report', 'consolidation_report', 'object');
  check(env, 'approval_request', 'approval_request', 'object');
  check(env, 'report_prose', 'report_prose', 'string');
  check(objectAt(env, 'agent_status'), 'agent_status.agent_id', 'agent_id', 'string');
  check(objectAt(env, 'evidence_report'), 'evidence_report.verification', 'verification', 'object');
}

/** Repair 6: an object element of files_checked / FILES_CHECKED that breaks the file-reference rule is flattened. */
function flattenFileReferences(env: JsonObject, repairs: Repair[]): void {
  const evidence = objectAt(env, 'evidence_report');
  if (evidence === undefined) return;
  for (const key of ['files_checked', 'FILES_CHECKED']) {
    const list = getOwn(evidence, key);
    if (!Array.isArray(list)) continue;
    list.forEach((el: unknown, i) => {
      if (!isPlainObject(el) || isFileReference(el)) return;
      list[i] = flatten(el);
      repairs.push({ path: `evidence_report.${key}[${i}]`, action: 'flattened', note: 'flattened to a string' });
    });
  }
}

/** A file reference: exactly `{path, commit}`, path a non-empty string, commit 7–64 hex. */
function isFileReference(el: JsonObject): boolean {
  const keys = Object.keys(el);
  return (
    keys.length === 2 && hasOwn(el, 'path') && hasOwn(el, 'commit') && isNonEmptyString(el.path) && isCommit(el.commit)
  );
}

/** `path` alone → the path; a path plus other keys → `<path> <JSON of the others>`; no usable path → the JSON. */
function flatten(el: JsonObject): string {
  const path = getOwn(el, 'path');
  if (!isNonEmptyString(path)) return JSON.stringify(el);
  const others = cloneJson(el);
  deleteOwn(others, 'path');
  return Object.keys(others).length === 0 ? path : `${path} ${JSON.stringify(others)}`;
}

function objectAt(obj: JsonObject, key: string): JsonObject | undefined {
  const v = getOwn(obj, key);
  return isPlainObject(v) ? v : undefined;
}
