/**
 * The test-change columns of a handoffs row (migration 0008): `test_base_json`, the base dispatch
 * took (set once), and `test_changes_json`, what finalize detected beside what the envelope declared (written by
 * finalize before it stores the closing state; a COMPLETE row's is frozen). Both backends' statements.
 */
import type { Db } from './db.js';
import type { Run } from './pg-driver.js';

/** Dispatch's base, in the birth row's transaction; false when the row has one already. */
export const setTestBase = (db: Db, id: number, json: string): boolean =>
  db.prepare('UPDATE handoffs SET test_base_json = ? WHERE id = ? AND test_base_json IS NULL').run(json, id).changes ===
  1;

/** Finalize's detection; a continuation without a base of its own takes the inherited one (`baseJson`). */
export const setTestChanges = (db: Db, id: number, json: string, baseJson: string | null): boolean =>
  db
    .prepare('UPDATE handoffs SET test_changes_json = ?, test_base_json = COALESCE(test_base_json, ?) WHERE id = ?')
    .run(json, baseJson, id).changes === 1;

export const pgSetTestBase = async (run: Run, id: number, json: string): Promise<boolean> =>
  (await run('UPDATE handoffs SET test_base_json = $1 WHERE id = $2 AND test_base_json IS NULL', [json, id]))
    .rowCount === 1;

export const pgSetTestChanges = async (run: Run, id: number, json: string, baseJson: string | null): Promise<boolean> =>
  (
    await run(
      'UPDATE handoffs SET test_changes_json = $1, test_base_json = COALESCE(test_base_json, $2) WHERE id = $3',
      [json, baseJson, id],
    )
  ).rowCount === 1;

/** Dispatch's (or finalize's, for an `init` draft) claim token hash, set once (migration 0010). */
export const setClaimTokenHash = (db: Db, id: number, sha256: string): boolean =>
  db.prepare('UPDATE handoffs SET claim_token_sha256 = ? WHERE id = ? AND claim_token_sha256 IS NULL').run(sha256, id)
    .changes === 1;

export const pgSetClaimTokenHash = async (run: Run, id: number, sha256: string): Promise<boolean> =>
  (await run('UPDATE handoffs SET claim_token_sha256 = $1 WHERE id = $2 AND claim_token_sha256 IS NULL', [sha256, id]))
    .rowCount === 1;
