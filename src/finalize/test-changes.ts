/**
 * Finalize's test-change step: the test files changed since the turn's base (taken at
 * dispatch, src/dispatch/test-base.ts) are computed once, here, and stored on the row with what the envelope declared
 * in `evidence_report.verification.test_changes`; the gate reads the stored result and never computes it. Added tests
 * are listed only; a COMPLETE close with modified or deleted test files must declare each one
 * (TESTS_CHANGED_UNDECLARED), and under `dispatch --protect-tests` refuses them all (TESTS_PROTECTED).
 */
import type { JsonObject } from '../envelope/vocabulary.js';
import type { Env } from '../paths.js';
import type { HandoffRow } from '../store/handoff-row.js';
import type { StoreReads } from '../store/store.js';
import { readStoredJson, testBaseColumn } from '../store/stored-json.js';
import { listFilesLater, scanTests, type TestBase } from '../dispatch/test-base.js';
import type { ClauseError } from './update-contracts.js';
import { closeErrors, readDeclared, type DetectedChange, type StoredTestChanges } from './test-rules.js';

export { TEST_CHANGES_REPAIR } from './test-rules.js';

/** The base this row's finalize compares against: its own, else the nearest earlier link's (continuations inherit). */
export async function baseOf(store: StoreReads, row: HandoffRow): Promise<TestBase | undefined> {
  const own = parseBase(row.test_base_json);
  if (own !== undefined || row.continues_handoff_id === null) return own;
  const chain = await store.wholeChain(row);
  for (let i = chain.findIndex((r) => r.contract_id === row.contract_id) - 1; i >= 0; i--) {
    const b = parseBase(chain[i].test_base_json);
    if (b !== undefined) return b;
  }
  return undefined;
}

const parseBase = (text: string | null | undefined): TestBase | undefined => readStoredJson(text, testBaseColumn);

/**
 * The changes since `base`: by path, added, modified and deleted with old and new sha256; "unknown" outside git.
 * `listed`: git's listing of the work directory when the caller started it early (listFilesLater).
 */
export function detectChanges(base: TestBase, env: Env, listed?: string[]): DetectedChange[] | 'unknown' {
  if (base.files === null) return 'unknown';
  const before = base.files;
  // The base's own paths are looked at too, listed or not: a test made ignored or dropped from the index still counts.
  const prior = { files: before, stat: base.stat ?? {} };
  const now = scanTests(base.workdir, base.globs, env, { prior, listed })?.files ?? {};
  const out: DetectedChange[] = [];
  for (const path of [...new Set([...Object.keys(before), ...Object.keys(now)])].sort()) {
    const o = before[path] ?? null;
    const n = now[path] ?? null;
    if (o === n) continue;
    out.push({
      path,
      change: o === null ? 'added' : n === null ? 'deleted' : 'modified',
      old_sha256: o,
      new_sha256: n,
    });
  }
  return out;
}

export interface TestStepResult {
  errors: ClauseError[];
  /** What the row stores; undefined when the contract has no base (not dispatched, or dispatched before the check). */
  stored?: StoredTestChanges;
  /** The base compared against, as stored (a continuation's row takes its inherited base with the detection). */
  baseJson?: string;
}

/** The base of the turn and git's listing of its work directory, as startTestStep leaves them. */
export interface EarlyTestStep {
  base?: TestBase;
  listed?: string[];
}

/**
 * Finalize's head start: the base is read and `git ls-files` started as soon as the row is known, so git runs while
 * finalize checks the envelope. Never rejects; a failure only means the listing is taken again at the step.
 */
export async function startTestStep(store: StoreReads, row: HandoffRow, env: Env): Promise<EarlyTestStep> {
  try {
    const base = await baseOf(store, row);
    if (base === undefined || base.files === null) return { base };
    return { base, listed: await listFilesLater(base.workdir, env) };
  } catch {
    return {};
  }
}

/** The whole step: declarations' shape, then (with a base) detection and the close rules. */
export async function testChangeStep(
  store: StoreReads | null,
  row: HandoffRow | undefined,
  envelope: JsonObject,
  state: string | undefined,
  env: Env,
  early?: Promise<EarlyTestStep>,
): Promise<TestStepResult> {
  const { declared, errors } = readDeclared(envelope);
  if (errors.length > 0) return { errors };
  const head = early === undefined ? undefined : await early;
  const base = head?.base ?? (store !== null && row !== undefined ? await baseOf(store, row) : undefined);
  if (base === undefined) return { errors: [] };
  const detected = detectChanges(base, env, head?.listed);
  return {
    errors: closeErrors(state, detected, declared, base.protect === true),
    stored: { detected, declared: declared ?? null },
    // Only a continuation takes the inherited base on its row; a row's own base is never written again.
    baseJson: row?.test_base_json == null ? JSON.stringify(base) : undefined,
  };
}
