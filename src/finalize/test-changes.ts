/**
 * Finalize's test-change step (amendments-4 §E3, §Z11): the test files changed since the turn's base (taken at
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
import { scanTests, type TestBase } from '../dispatch/test-base.js';
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

/** The changes since `base`: by path, added, modified and deleted with old and new sha256; "unknown" outside git. */
export function detectChanges(base: TestBase, env: Env): DetectedChange[] | 'unknown' {
  if (base.files === null) return 'unknown';
  const before = base.files;
  // The base's own paths are looked at too, listed or not: a test made ignored or dropped from the index still counts.
  const now = scanTests(base.workdir, base.globs, env, { files: before, stat: base.stat ?? {} })?.files ?? {};
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

/** The whole step: declarations' shape, then (with a base) detection and the close rules. */
export async function testChangeStep(
  store: StoreReads | null,
  row: HandoffRow | undefined,
  envelope: JsonObject,
  state: string | undefined,
  env: Env,
): Promise<TestStepResult> {
  const { declared, errors } = readDeclared(envelope);
  if (errors.length > 0) return { errors };
  const base = store !== null && row !== undefined ? await baseOf(store, row) : undefined;
  if (base === undefined) return { errors: [] };
  const detected = detectChanges(base, env);
  return {
    errors: closeErrors(state, detected, declared, base.protect === true),
    stored: { detected, declared: declared ?? null },
    baseJson: JSON.stringify(base),
  };
}
