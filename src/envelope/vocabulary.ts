/**
 * The envelope's vocabulary: the key lists, homes and typed fields of the closed levels, read
 * from the zod declaration (schema.ts), where every key and type is written once; the enums and patterns
 * (patterns.ts, re-exported here); the initial envelope; and the JSON value semantics the validator applies.
 * Everything here is a small constant built once at import time; no function does I/O.
 */
import type { ZodMiniType } from 'zod/mini';
import {
  AGENT_ID_RE,
  AGENT_STATES,
  COMMIT_RE,
  OWNERSHIP_ASSESSMENTS,
  PHASES,
  RECEIPT_ID_RE,
  SEVERITIES,
  type AgentState,
} from './patterns.js';
import {
  agentRootShape,
  agentStatusShape,
  declaredType,
  evidenceListShape,
  evidenceReportShape,
  evidenceSpellingShape,
  rootShape,
  systemRootShape,
  type DeclaredType,
  type Envelope,
} from './schema.js';

export * from './patterns.js';
export type { DeclaredType } from './schema.js';

const keysOf = <S extends object>(shape: S): (keyof S & string)[] => Object.keys(shape) as (keyof S & string)[];

/** The 14 root keys an agent may write, in their documented order (also the UNKNOWN_FIELD candidate list). */
export const AGENT_WRITABLE_ROOT_KEYS = keysOf(agentRootShape);

/** Root keys written by the tool (or tolerated from stored envelopes); never type-checked, never suggested. */
export const SYSTEM_ROOT_KEYS = keysOf(systemRootShape);

/** The closed `agent_status` level, in declaration order. */
export const AGENT_STATUS_KEYS = keysOf(agentStatusShape);

/** The seven evidence lists, in the fixed order used for MISSING_FIELD. */
export const EVIDENCE_LISTS = keysOf(evidenceListShape);

/** The accepted UPPER-CASE spelling of each list, index for index (not type-checked; satisfies presence of the list). */
export const EVIDENCE_LISTS_UPPER: readonly string[] = keysOf(evidenceSpellingShape);

/** The closed `evidence_report` level: 7 lists, their 7 upper-case spellings, `verification`. */
export const EVIDENCE_REPORT_KEYS: readonly string[] = keysOf(evidenceReportShape);

const SPELLINGS: ReadonlySet<string> = new Set(EVIDENCE_LISTS_UPPER);

/** Candidates offered by UNKNOWN_FIELD at `evidence_report` (upper-case spellings are accepted but not advertised). */
export const EVIDENCE_REPORT_SUGGESTIONS: readonly string[] = EVIDENCE_REPORT_KEYS.filter((k) => !SPELLINGS.has(k));

export const ROOT_KEYS: readonly string[] = keysOf(rootShape);

export type Level = 'root' | 'agent_status' | 'evidence_report';

/** The declaration of each closed level (src/envelope/schema.ts). */
const LEVEL_SHAPES: Readonly<Record<Level, Readonly<Record<string, ZodMiniType>>>> = {
  root: rootShape,
  agent_status: agentStatusShape,
  evidence_report: evidenceReportShape,
};

/** Accepted keys per closed level, as sets for O(1) membership. */
export const ACCEPTED_KEYS: Readonly<Record<Level, ReadonlySet<string>>> = {
  root: new Set(ROOT_KEYS),
  agent_status: new Set(AGENT_STATUS_KEYS),
  evidence_report: new Set(EVIDENCE_REPORT_KEYS),
};

/** Keys a writer may use at each level, offered in UNKNOWN_FIELD details (root: never the system keys). */
export const SUGGESTED_KEYS: Readonly<Record<Level, readonly string[]>> = {
  root: AGENT_WRITABLE_ROOT_KEYS,
  agent_status: AGENT_STATUS_KEYS,
  evidence_report: EVIDENCE_REPORT_SUGGESTIONS,
};

/**
 * The home of every key that has one: the first closed level (root, agent_status, evidence_report) that
 * declares it. So `agent_state` lives at the root (the system key); the agent's state in `agent_status` is accepted
 * there but is not what a misplaced `agent_state` is pointed at. Upper-case spellings have no home, so they are
 * UNKNOWN_FIELD wherever they are not accepted.
 */
export const HOMES: ReadonlyMap<string, Level> = (() => {
  const homes = new Map<string, Level>();
  const homed: [Level, readonly string[]][] = [
    ['root', ROOT_KEYS],
    ['agent_status', AGENT_STATUS_KEYS],
    ['evidence_report', EVIDENCE_REPORT_SUGGESTIONS],
  ];
  for (const [level, keys] of homed) for (const key of keys) if (!homes.has(key)) homes.set(key, level);
  return homes;
})();

/**
 * The fields FIELD_TYPE checks at each closed level, in declaration order, with the JSON type each is
 * declared with (read from the declaration; keys of any value, spellings and own-rule fields are not listed).
 */
export const TYPED_FIELDS: Readonly<Record<Level, readonly (readonly [string, DeclaredType])[]>> = (() => {
  const typed = (level: Level) =>
    Object.entries(LEVEL_SHAPES[level]).flatMap(([key, schema]) => {
      const type = declaredType(schema);
      return type === undefined ? [] : [[key, type] as const];
    });
  return { root: typed('root'), agent_status: typed('agent_status'), evidence_report: typed('evidence_report') };
})();

export const AGENT_STATE_SET: ReadonlySet<string> = new Set(AGENT_STATES);

/** Row states: the six agent states plus `DISPATCHED`, which no envelope may carry. */
export const ROW_STATES = ['DISPATCHED', ...AGENT_STATES] as const;
export type RowState = (typeof ROW_STATES)[number];

/** Closing states: every agent state except `IN_PROGRESS`. */
export const CLOSING_STATES = AGENT_STATES.filter((s) => s !== 'IN_PROGRESS');
export const CLOSING_STATE_SET: ReadonlySet<string> = new Set(CLOSING_STATES);

export const PHASE_SET: ReadonlySet<string> = new Set(PHASES);
export const SEVERITY_SET: ReadonlySet<string> = new Set(SEVERITIES);
export const OWNERSHIP_SET: ReadonlySet<string> = new Set(OWNERSHIP_ASSESSMENTS);

/** The seven evidence lists, each empty, in EVIDENCE_LISTS order (the seed's and the repair template's). */
export const emptyEvidenceLists = (): Record<string, unknown[]> =>
  Object.fromEntries(EVIDENCE_LISTS.map((k): [string, unknown[]] => [k, []]));

/**
 * What `init` and dispatch seed; key order is part of the contract (drafts are written in object order). Typed
 * by the declaration, so a seed that the schema would not accept does not compile.
 */
export function initialEnvelope(agentId: string): JsonObject {
  const seed: Envelope = {
    agent_status: { agent_state: 'IN_PROGRESS', agent_id: agentId, pending_steps: [], next_action: 'pending' },
    evidence_report: emptyEvidenceLists(),
    consolidation_report: null,
    approval_request: null,
    failure_report: null,
    memory_delta: null,
    work_phase: null,
  };
  return seed;
}

// ---------------------------------------------------------------------------------------------------------------
// Value semantics. These are JSON semantics, deliberately not JavaScript truthiness.

export type JsonObject = Record<string, unknown>;
export type JsonTypeName = 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null';

/** A JSON object: non-null, not an array. */
export const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `{}`: an object with no own keys. */
export const isEmptyObject = (v: JsonObject): boolean => Object.keys(v).length === 0;

/**
 * Own-property read. A plain `obj[key]` would see `Object.prototype` members (`obj.__proto__`, `obj.constructor`)
 * when the key is absent, turning "absent" into "present".
 */
export const own = (obj: JsonObject, key: string): unknown => (Object.hasOwn(obj, key) ? obj[key] : undefined);
export const has = (obj: JsonObject, key: string): boolean => Object.hasOwn(obj, key);

/** Absent (undefined), null, or a string that `trim()`s to "". Numbers, booleans, arrays, objects are never blank. */
export const isBlank = (v: unknown): boolean =>
  v === undefined || v === null || (typeof v === 'string' && v.trim() === '');

/** A string that is not blank; no other type qualifies. */
export const isNonEmptyString = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '';

/** Truthy: everything except absent, null, false, 0, "", [] and {} (so "false", " ", [0] are truthy). */
export function isTruthy(v: unknown): boolean {
  if (v === undefined || v === null || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (isObject(v)) return !isEmptyObject(v);
  return true;
}

export function jsonTypeName(v: unknown): JsonTypeName {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  const t = typeof v;
  if (t === 'string' || t === 'number' || t === 'boolean') return t;
  return 'object';
}

const TRAILING_STATE_PUNCT_RE = /[.,;]+$/;

/** Trim, upper-case, drop one trailing run of `.,;`. No second trim (`"COMPLETE ."` stays invalid). */
export const normalizeState = (s: string): string => s.trim().toUpperCase().replace(TRAILING_STATE_PUNCT_RE, '');

/** The valid agent state a value normalizes to, or undefined (non-strings never name a state). */
export function validState(v: unknown): AgentState | undefined {
  if (typeof v !== 'string') return undefined;
  const n = normalizeState(v);
  return AGENT_STATE_SET.has(n) ? (n as AgentState) : undefined;
}

// `\s` in JavaScript is exactly the set `trim()` removes (U+FEFF included), so the fold and trim agree.
const TYPE_SEPARATORS_RE = /[\s_-]+/g;
const EDGE_UNDERSCORES_RE = /^_+|_+$/g;

/**
 * Fold of `verification.type`. Returns "" for no claim (absent, null, blank, separators only), the folded word
 * for a string, and null for any other value: a non-string type is an unknown word (a claim equal to no known word).
 */
export function foldType(v: unknown): string | null {
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') return null;
  const t = v.trim().toLowerCase();
  if (t === '') return '';
  return t.replace(TYPE_SEPARATORS_RE, '_').replace(EDGE_UNDERSCORES_RE, '');
}

/** A string whose `trim().toLowerCase()` is a member. Non-strings never match. */
export const tokenMatch = (v: unknown, members: ReadonlySet<string>): v is string =>
  typeof v === 'string' && members.has(v.trim().toLowerCase());

/** Commit rule: a string whose `trim().toLowerCase()` is 7–64 hex digits. */
export const isCommit = (v: unknown): v is string => typeof v === 'string' && COMMIT_RE.test(v.trim().toLowerCase());

export const isReceiptId = (v: unknown): v is string => typeof v === 'string' && RECEIPT_ID_RE.test(v);
export const isAgentId = (v: unknown): v is string => typeof v === 'string' && AGENT_ID_RE.test(v);
