/**
 * The rules of the test-change check, pure (no file system, no git): the declarations' shape and what a COMPLETE
 * close with detected changes needs. Finalize applies them to what it detects (test-changes.ts); the stop gate applies
 * them to what finalize stored on the row (storedTestErrors), never computing anything itself.
 */
import { isObject, own, type JsonObject } from '../envelope/vocabulary.js';
import type { HandoffRow } from '../store/handoff-row.js';
import { readStoredJson, testBaseColumn, testChangesColumn } from '../store/stored-json.js';
import type { ClauseError } from './update-contracts.js';

export interface DetectedChange {
  path: string;
  change: 'added' | 'modified' | 'deleted';
  old_sha256: string | null;
  new_sha256: string | null;
}

export interface DeclaredChange {
  path: string;
  reason: string;
}

/** What finalize stores (`test_changes_json`). */
export interface StoredTestChanges {
  detected: DetectedChange[] | 'unknown';
  declared: DeclaredChange[] | null;
}

export const TEST_CHANGES_PATH = 'evidence_report.verification.test_changes';
const MAX_DECLARED = 10_000;
const MAX_REASON_CHARS = 4096;

export const TEST_CHANGES_REPAIR =
  'Each modified or deleted test file of a COMPLETE close is declared in evidence_report.verification.test_changes, ' +
  'a list of {"path": "<path as listed>", "reason": "<why the test had to change>"} (handoff contract add ' +
  `${TEST_CHANGES_PATH} '{"path":"test/a.test.ts","reason":"…"}'). A contract dispatched with --protect-tests ` +
  'cannot close COMPLETE with a modified or deleted test: restore the tests, or close NEEDS_VERIFICATION or BLOCKED ' +
  'and say why. Added tests need no declaration.';

/**
 * The declarations of the envelope: undefined when there are none, else the list or the shape errors
 * (TEST_CHANGES_SHAPE: not a list of objects holding exactly a non-blank `path` and a non-blank `reason`).
 */
export function readDeclared(envelope: JsonObject): { declared?: DeclaredChange[]; errors: ClauseError[] } {
  const report = own(envelope, 'evidence_report');
  const verification = isObject(report) ? own(report, 'verification') : undefined;
  const list = isObject(verification) ? own(verification, 'test_changes') : undefined;
  if (list === undefined) return { errors: [] };
  const shape = (path: string, detail: string): ClauseError => ({ code: 'TEST_CHANGES_SHAPE', path, detail });
  if (!Array.isArray(list)) return { errors: [shape(TEST_CHANGES_PATH, 'test_changes must be a list')] };
  if (list.length > MAX_DECLARED)
    return { errors: [shape(TEST_CHANGES_PATH, `test_changes lists more than ${MAX_DECLARED} entries`)] };
  const errors: ClauseError[] = [];
  const declared: DeclaredChange[] = [];
  list.forEach((item: unknown, i) => {
    const at = `${TEST_CHANGES_PATH}[${i}]`;
    if (!isObject(item)) return errors.push(shape(at, 'each entry is an object {"path", "reason"}'));
    const extra = Object.keys(item).filter((k) => k !== 'path' && k !== 'reason');
    if (extra.length > 0) return errors.push(shape(at, `unknown key(s) ${extra.join(', ')}: only path and reason`));
    const { path, reason } = item as Record<string, unknown>;
    if (typeof path !== 'string' || path.trim() === '')
      return errors.push(shape(`${at}.path`, 'path must be a non-blank string (the path as detected)'));
    if (typeof reason !== 'string' || reason.trim() === '' || reason.length > MAX_REASON_CHARS)
      return errors.push(
        shape(`${at}.reason`, `reason must be a non-blank string of at most ${MAX_REASON_CHARS} characters`),
      );
    declared.push({ path, reason });
  });
  return errors.length > 0 ? { errors } : { declared, errors };
}

/** The refusals of a COMPLETE close over what was detected. */
export function closeErrors(
  state: string | undefined,
  detected: DetectedChange[] | 'unknown',
  declared: DeclaredChange[] | undefined,
  protect: boolean,
): ClauseError[] {
  if (state !== 'COMPLETE' || detected === 'unknown') return [];
  const changed = detected.filter((d) => d.change !== 'added');
  if (protect) {
    return changed.map((d) => ({
      code: 'TESTS_PROTECTED',
      path: TEST_CHANGES_PATH,
      detail: `${d.path} was ${d.change} since dispatch; this contract was dispatched with --protect-tests, so it cannot close COMPLETE with a modified or deleted test`,
    }));
  }
  const said = new Set((declared ?? []).map((d) => d.path));
  return changed
    .filter((d) => !said.has(d.path))
    .map((d) => ({
      code: 'TESTS_CHANGED_UNDECLARED',
      path: TEST_CHANGES_PATH,
      detail: `${d.path} was ${d.change} since dispatch and is not declared: add {"path": ${JSON.stringify(d.path)}, "reason": "…"} to test_changes`,
    }));
}

/**
 * The gate's reading of a COMPLETE row: the refusals finalize would give over what it stored, so a row written
 * behind finalize's back is not excused. Empty without a stored detection.
 */
export function storedTestErrors(row: HandoffRow): ClauseError[] {
  if (row.agent_state !== 'COMPLETE') return [];
  const stored = readStoredJson(row.test_changes_json, testChangesColumn);
  if (stored === undefined) return [];
  const protect = readStoredJson(row.test_base_json, testBaseColumn)?.protect === true;
  return closeErrors(row.agent_state, stored.detected, stored.declared ?? undefined, protect);
}
