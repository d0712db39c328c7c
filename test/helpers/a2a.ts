/**
 * A2A v1 conformance of an exported Task, checked with `@a2a-js/sdk` (protocol 1.0): its proto-generated JSON codec
 * must read the Task and write back exactly the same JSON (so every field name, enum spelling and part shape is one
 * the schema declares: an unknown field, a v0.3 spelling such as `"completed"` or `"kind"`, a number where a string
 * goes, a part with two contents all change on the way through), plus what the specification requires and the codec
 * does not check (ids, a state, at least one part per artifact, unique artifact ids).
 */
import { isDeepStrictEqual } from 'node:util';
import { Task, TaskState, taskStateFromJSON } from '@a2a-js/sdk';
import type { A2aTaskState } from '../../src/attest/a2a.js';

/**
 * Compile time: every state the exporter writes is a name of the SDK's TaskState enum (a misspelt member of
 * A2aTaskState fails `tsc`); the runtime check below reads the same names through the SDK's codec.
 */
const STATE_NAMES = {
  TASK_STATE_SUBMITTED: TaskState.TASK_STATE_SUBMITTED,
  TASK_STATE_WORKING: TaskState.TASK_STATE_WORKING,
  TASK_STATE_COMPLETED: TaskState.TASK_STATE_COMPLETED,
  TASK_STATE_FAILED: TaskState.TASK_STATE_FAILED,
  TASK_STATE_INPUT_REQUIRED: TaskState.TASK_STATE_INPUT_REQUIRED,
  TASK_STATE_AUTH_REQUIRED: TaskState.TASK_STATE_AUTH_REQUIRED,
} as const satisfies Record<A2aTaskState, TaskState>;

export const EXPORTED_STATES = Object.keys(STATE_NAMES) as A2aTaskState[];

const CONTENTS = ['text', 'raw', 'url', 'data'] as const;

function partProblems(part: unknown, where: string): string[] {
  if (typeof part !== 'object' || part === null) return [`${where}: not an object`];
  const n = CONTENTS.filter((k) => Object.hasOwn(part, k)).length;
  return n === 1 ? [] : [`${where}: ${n} contents (exactly one of text, raw, url, data)`];
}

/** Every way `json` (one parsed line) falls short of an A2A v1 Task; [] when it is one. */
export function a2aTaskProblems(json: unknown): string[] {
  const problems: string[] = [];
  const decoded = Task.fromJSON(json);
  const again = Task.toJSON(decoded);
  if (!isDeepStrictEqual(again, json)) problems.push(`not read back as written: ${JSON.stringify(again)}`);
  if (decoded.id === '') problems.push('id: empty');
  if (decoded.contextId === '') problems.push('contextId: empty');
  const state = decoded.status?.state;
  if (state === undefined || state === TaskState.TASK_STATE_UNSPECIFIED || state === TaskState.UNRECOGNIZED)
    problems.push(`status.state: not a TaskState`);
  const timestamp = decoded.status?.timestamp;
  if (timestamp !== undefined && Number.isNaN(Date.parse(timestamp))) problems.push('status.timestamp: not ISO 8601');
  const message = decoded.status?.message;
  if (message !== undefined) {
    if (message.messageId === '') problems.push('status.message.messageId: empty');
    if (message.taskId !== decoded.id || message.contextId !== decoded.contextId)
      problems.push('status.message: another task or context');
    if (message.parts.length === 0) problems.push('status.message.parts: empty');
  }
  const raw = json as { artifacts?: { parts?: unknown[] }[]; status?: { message?: { parts?: unknown[] } } };
  (raw.status?.message?.parts ?? []).forEach((p, j) => problems.push(...partProblems(p, `status.message.parts[${j}]`)));
  const ids = new Set<string>();
  decoded.artifacts.forEach((a, i) => {
    if (a.artifactId === '') problems.push(`artifacts[${i}].artifactId: empty`);
    if (ids.has(a.artifactId)) problems.push(`artifacts[${i}].artifactId: ${a.artifactId} twice`);
    ids.add(a.artifactId);
    if (a.parts.length === 0) problems.push(`artifacts[${i}].parts: empty (at least one part)`);
    (raw.artifacts?.[i]?.parts ?? []).forEach((p, j) =>
      problems.push(...partProblems(p, `artifacts[${i}].parts[${j}]`)),
    );
  });
  return problems;
}

/** The SDK's reading of a state's name (TASK_STATE_UNSPECIFIED's number for a name it does not know). */
export const sdkStateOf = (name: string): TaskState => taskStateFromJSON(name);

/**
 * The line digests a signed export's head statement lists, in order: each entry a digest, or an object carrying it
 * as `sha256` (a head that also states how each line was signed).
 */
export const headDigests = (head: { predicate: { lines: unknown[] } }): string[] =>
  head.predicate.lines.map((l) => (typeof l === 'string' ? l : (l as { sha256: string }).sha256));
