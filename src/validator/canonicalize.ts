/**
 * Canonicalization on write. Works on a deep copy, never on the input. Changes are reported in
 * the order of the canonicalization table below, and within a row in document order (files_checked before FILES_CHECKED, by index).
 * Only values that actually change are reported. Canonical values validate exactly like the raw ones.
 */
import {
  foldType,
  isCommit,
  isObject,
  own,
  OWNERSHIP_SET,
  PHASE_SET,
  SEVERITY_SET,
  tokenMatch,
  validState,
  type JsonObject,
} from '../envelope/vocabulary.js';

export interface CanonicalChange {
  path: string;
  from: unknown;
  to: unknown;
}

export interface CanonicalizeResult<T> {
  envelope: T;
  changes: CanonicalChange[];
}

const DONE: ReadonlySet<string> = new Set(['done']);

/**
 * Iterative deep copy: no recursion, so a deeply nested advisory value cannot overflow the stack. `__proto__` own
 * keys are defined, not assigned (assignment would set the prototype). Shared sub-values stay shared.
 */
export function deepCopy<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  const copies = new Map<object, unknown[] | JsonObject>();
  const pending: object[] = [];
  const shell = (v: object): unknown[] | JsonObject => {
    let c = copies.get(v);
    if (c === undefined) {
      c = Array.isArray(v) ? new Array<unknown>(v.length) : {};
      copies.set(v, c);
      pending.push(v);
    }
    return c;
  };
  const copyOf = (v: unknown): unknown => (typeof v === 'object' && v !== null ? shell(v) : v);
  const root = shell(value);
  while (pending.length > 0) {
    const src = pending.pop() as object;
    const dst = copies.get(src) as unknown[] | JsonObject;
    if (Array.isArray(src)) {
      const arr = dst as unknown[];
      for (let i = 0; i < src.length; i++) arr[i] = copyOf(src[i]);
    } else {
      const obj = dst as JsonObject;
      for (const key of Object.keys(src)) {
        const v = copyOf((src as JsonObject)[key]);
        if (key === '__proto__')
          Object.defineProperty(obj, key, { value: v, enumerable: true, writable: true, configurable: true });
        else obj[key] = v;
      }
    }
  }
  return root as T;
}

type Canonical = (value: unknown) => string | undefined;

const lowerToken =
  (members: ReadonlySet<string>): Canonical =>
  (v) =>
    tokenMatch(v, members) ? v.trim().toLowerCase() : undefined;

function child(obj: JsonObject | undefined, key: string): JsonObject | undefined {
  if (obj === undefined) return undefined;
  const v = own(obj, key);
  return isObject(v) ? v : undefined;
}

export function canonicalizeEnvelope<T>(envelope: T): CanonicalizeResult<T> {
  const copy = deepCopy(envelope);
  const changes: CanonicalChange[] = [];
  if (!isObject(copy)) return { envelope: copy, changes };

  const apply = (obj: JsonObject | undefined, key: string, path: string, canonical: Canonical): void => {
    if (obj === undefined || !Object.hasOwn(obj, key)) return;
    const from = obj[key];
    const to = canonical(from);
    if (to === undefined || to === from) return;
    obj[key] = to;
    changes.push({ path, from, to });
  };

  const status = child(copy, 'agent_status');
  const report = child(copy, 'evidence_report');
  const verification = child(report, 'verification');

  apply(status, 'agent_state', 'agent_status.agent_state', validState);
  apply(status, 'next_action', 'agent_status.next_action', (v) => (tokenMatch(v, DONE) ? 'done' : undefined));
  apply(copy, 'work_phase', 'work_phase', lowerToken(PHASE_SET));
  apply(verification, 'result', 'evidence_report.verification.result', (v) =>
    typeof v === 'string' ? v.trim().toLowerCase() : undefined,
  );
  apply(verification, 'type', 'evidence_report.verification.type', (v) => {
    const word = typeof v === 'string' ? foldType(v) : null;
    return word === null || word === '' ? undefined : word;
  });
  for (const list of ['files_checked', 'FILES_CHECKED']) {
    const elements = report === undefined ? undefined : own(report, list);
    if (!Array.isArray(elements)) continue;
    elements.forEach((element: unknown, i) => {
      if (!isObject(element)) return;
      apply(element, 'commit', `evidence_report.${list}[${i}].commit`, (v) =>
        isCommit(v) ? v.trim().toLowerCase() : undefined,
      );
    });
  }
  apply(child(copy, 'failure_report'), 'severity', 'failure_report.severity', lowerToken(SEVERITY_SET));
  apply(
    child(copy, 'consolidation_report'),
    'ownership_assessment',
    'consolidation_report.ownership_assessment',
    lowerToken(OWNERSHIP_SET),
  );
  return { envelope: copy, changes };
}
