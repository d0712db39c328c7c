/** The `handoffs` row as read from SQLite, and its JSON exposure. */
import { CLOSING_STATE_SET, type RowState } from '../envelope/vocabulary.js';
import {
  acceptanceColumn,
  jsonColumn,
  readStoredJson,
  stringListColumn,
  testBaseColumn,
  testChangesColumn,
} from './stored-json.js';

export type CutReason = 'never_finalized' | 'backstop_capture';

export interface HandoffRow {
  id: number;
  contract_id: string;
  agent_id: string;
  workspace: string;
  agent_state: RowState;
  cut_reason: CutReason | null;
  raw_handoff_json: string;
  kind: string | null;
  plan_task_id: string | null;
  parent_handoff_id: number | null;
  brief_id: number | null;
  continues_handoff_id: number | null;
  harness_id: string | null;
  goal: string | null;
  consolidation: 0 | 1;
  /** 0 on a version-1 store read by a probe (the column arrives with migration 0002). */
  require_receipt: 0 | 1;
  can_write_json: string | null;
  acceptance_json: string | null;
  created_at: string;
  updated_at: string;
  /** Set once by the first finalize that stored a closing state (migration 0003); null before, and on older stores. */
  finalized_at: string | null;
  /** When the stop gate last judged a stop of this contract (migration 0003; absent on an older store read by a probe). */
  gate_seen_at?: string | null;
  /** Approval patterns, a JSON array of strings (migration 0008; absent on an older store read by a probe). */
  require_approval_json?: string | null;
  /** The draft revision the stored envelope reflects (migration 0007; absent on an older store read by a probe). */
  mirror_rev?: number;
  /** The test base dispatch took (migration 0008; absent on an older store read by a probe). */
  test_base_json?: string | null;
  /** What finalize detected since the test base, beside what was declared (migration 0008). */
  test_changes_json?: string | null;
  /** The claim token's sha256 (migration 0010); never exposed. Null before the migration: no token needed. */
  claim_token_sha256?: string | null;
  /** The dispatch's verification policy (migration 0012; 'any' on older rows and older stores). */
  verification: VerificationPolicy;
  /** The dispatch's --check commands, a JSON array (migration 0012); null when none. */
  checks_json: string | null;
  /** What finalize saw of each cited receipt, a JSON array of {receipt_id, freshness} (migration 0012). */
  receipt_freshness_json: string | null;
}

export type VerificationPolicy = 'receipt' | 'typed' | 'any';

export type { RowState };

export const isClosedState = (state: string | null | undefined): boolean =>
  state != null && CLOSING_STATE_SET.has(state);

/**
 * What a mirror did: `mirrored` (the row now holds this revision), `superseded` (the row already reflects this
 * revision or a later one, open or closed by a finalize that read it: nothing written), `closed` (the row closed
 * without it), `no_row`.
 */
export type MirrorOutcome = 'mirrored' | 'superseded' | 'no_row' | 'closed';

/**
 * How a row the guarded UPDATE left unchanged answers a mirror of revision `rev` (shared by both stores): a row's
 * revision only grows and its state only goes from open to closed, so a row still below `rev` is closed.
 */
export const mirrorMiss = (row: { mirror_rev: number | string } | undefined, rev: number): MirrorOutcome =>
  row === undefined ? 'no_row' : Number(row.mirror_rev) >= rev ? 'superseded' : 'closed';

/**
 * Normalizes a raw row (`SELECT *`): a store read as it is may lack `require_receipt` (v1), `finalized_at` (v1, v2) or
 * the verification columns (before 0012).
 */
export function toHandoffRow(raw: Record<string, unknown>): HandoffRow {
  const row = raw as unknown as HandoffRow;
  if (row.require_receipt === undefined || row.finalized_at === undefined || row.verification === undefined) {
    return {
      ...row,
      require_receipt: row.require_receipt ?? 0,
      finalized_at: row.finalized_at ?? null,
      verification: row.verification ?? 'any',
      checks_json: row.checks_json ?? null,
      receipt_freshness_json: row.receipt_freshness_json ?? null,
    };
  }
  return row;
}

/**
 * A row as exposed in JSON: every column except `raw_handoff_json`; flags as booleans; `*_json` columns parsed
 * under their name without `_json`; `envelope` (the parsed `raw_handoff_json`) only when asked.
 */
export function exposeHandoff(row: HandoffRow, withEnvelope = false): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: row.id,
    contract_id: row.contract_id,
    agent_id: row.agent_id,
    workspace: row.workspace,
    agent_state: row.agent_state,
    cut_reason: row.cut_reason,
    kind: row.kind,
    plan_task_id: row.plan_task_id,
    parent_handoff_id: row.parent_handoff_id,
    brief_id: row.brief_id,
    continues_handoff_id: row.continues_handoff_id,
    harness_id: row.harness_id,
    goal: row.goal,
    consolidation: row.consolidation === 1,
    require_receipt: row.require_receipt === 1,
    verification: row.verification,
    checks: readStoredJson(row.checks_json, stringListColumn) ?? null,
    receipt_freshness: readStoredJson(row.receipt_freshness_json, jsonColumn) ?? null,
    can_write: readStoredJson(row.can_write_json, stringListColumn) ?? null,
    acceptance: readStoredJson(row.acceptance_json, acceptanceColumn) ?? null,
    created_at: row.created_at,
    updated_at: row.updated_at,
    finalized_at: row.finalized_at ?? null,
    gate_seen_at: row.gate_seen_at ?? null,
    ...exposeTestChanges(row),
  };
  if (withEnvelope) out.envelope = readStoredJson(row.raw_handoff_json, jsonColumn) ?? null;
  return out;
}

/**
 * The test-change fields of a row: `test_base` (where and from what the base was taken, without
 * the file hashes), `test_changes` as detected at finalize (a list, "unknown" outside git, null before finalize or
 * without a base) and `test_changes_declared` (the envelope's list, null when none).
 */
export function exposeTestChanges(row: HandoffRow): {
  test_base: Record<string, unknown> | null;
  test_changes: unknown;
  test_changes_declared: unknown;
} {
  const base = readStoredJson(row.test_base_json, testBaseColumn);
  const changes = readStoredJson(row.test_changes_json, testChangesColumn);
  return {
    test_base:
      base === undefined
        ? null
        : {
            workdir: base.workdir,
            git_head: base.git_head,
            tree_fingerprint: base.tree_fingerprint,
            globs: base.globs,
            protect_tests: base.protect,
            test_files: base.files === null ? 'unknown' : Object.keys(base.files).length,
          },
    test_changes: changes?.detected ?? null,
    test_changes_declared: changes?.declared ?? null,
  };
}
