/**
 * The `handoffs` table's statements, written once for both backends: rows, continuation chains, `contract list`,
 * and the writes of dispatch, claim, the stop gate's capture, finalize, continuations and the drafts' mirror. Row
 * times are `handoff_now()`, the store's clock. A chain is read in one statement each way (a recursive query bounded
 * past the 64-row limit), then judged.
 */
import { chainBroken, chainTooLong, MAX_CHAIN_ROWS } from '../chain.js';
import type { BirthRow } from '../dispatch-rows.js';
import { FINAL_ROW_MERGE, type FinalRow } from '../finalize-row.js';
import { EXACT_FILTERS, type HandoffFilters } from '../handoff-filters.js';
import { mirrorMiss, toHandoffRow, type HandoffRow, type MirrorOutcome } from '../handoff-row.js';
import { afterKey } from '../page.js';
import type { CaptureNew, CaptureOpen } from '../concerns.js';
import { q, type Dialect, type Op, type Raw } from './op.js';

const one = (rows: Raw[]): HandoffRow | undefined => (rows[0] === undefined ? undefined : toHandoffRow(rows[0]));

/** Rows of a recursive walk without the walk's own `hop` column. */
const stripHop = (rows: Raw[]): HandoffRow[] => rows.map(({ hop: _hop, ...rest }) => toHandoffRow(rest));

const walkText = (first: string, step: string, hop0: number): string =>
  `WITH RECURSIVE w AS (
       SELECT h.*, ${hop0} AS hop FROM handoffs h WHERE ${first}
       UNION ALL
       SELECT h.*, w.hop + 1 FROM w JOIN handoffs h ON ${step} WHERE w.hop <= $2
     ) SELECT * FROM w ORDER BY hop`;
const WALK_NEXT = walkText('h.continues_handoff_id = $1', 'h.continues_handoff_id = w.id', 1);
const WALK_BACK = walkText('h.id = $1', 'h.id = w.continues_handoff_id', 1);
const CHAIN_OF_CONTRACT = walkText('h.contract_id = $1', 'h.continues_handoff_id = w.id', 0);

/**
 * Appends `steps` to `[row]` while each step continues the previous one: a repeated row is CHAIN_BROKEN, a 65th
 * row CHAIN_TOO_LONG. With `needsParent`, a row whose parent is not the next step has a dangling link.
 */
function judge(row: HandoffRow, steps: HandoffRow[], needsParent: boolean): HandoffRow[] {
  const out = [row];
  const seen = new Set([row.id]);
  for (let cur = row, i = 0; ; i++) {
    const step = steps[i];
    if (needsParent && cur.continues_handoff_id === null) return out;
    if (step === undefined) {
      if (!needsParent) return out;
      throw chainBroken(
        row.contract_id,
        `row ${cur.id} continues row ${cur.continues_handoff_id}, which does not exist`,
      );
    }
    if (seen.has(step.id)) throw chainBroken(row.contract_id, `row ${step.id} appears twice`);
    if (out.length >= MAX_CHAIN_ROWS) throw chainTooLong(row.contract_id);
    out.push(step);
    seen.add(step.id);
    cur = step;
  }
}

/** From `row` forward to the live tip: [row, …, tip]. */
function* followChain(row: HandoffRow): Op<HandoffRow[]> {
  return judge(row, stripHop((yield* q(WALK_NEXT, [row.id, MAX_CHAIN_ROWS])).rows), false);
}

/** From `row` back to the root: [row, …, root]. */
function* walkBack(row: HandoffRow): Op<HandoffRow[]> {
  if (row.continues_handoff_id === null) return [row];
  return judge(row, stripHop((yield* q(WALK_BACK, [row.continues_handoff_id, MAX_CHAIN_ROWS])).rows), true);
}

/** root → live tip. */
function* wholeChain(row: HandoffRow): Op<HandoffRow[]> {
  const back = yield* walkBack(row);
  const chain = yield* followChain(back[back.length - 1]);
  if (!chain.some((c) => c.id === row.id))
    throw chainBroken(row.contract_id, `row ${row.id} is not reachable from its root`);
  return chain;
}

/** `contract list`'s conditions, each value a `$n` parameter. */
function whereOf(f: HandoffFilters): { where: string[]; values: unknown[]; param: (v: unknown) => string } {
  const where: string[] = [];
  const values: unknown[] = [];
  const param = (v: unknown): string => `$${values.push(v)}`;
  for (const key of EXACT_FILTERS) if (f[key] !== undefined) where.push(`${key} = ${param(f[key])}`);
  if (f.cut === true) where.push('cut_reason IS NOT NULL');
  else if (f.cut !== undefined) where.push(`cut_reason = ${param(f.cut)}`);
  if (f.cut !== undefined && f.stale_before !== undefined) {
    where.push(`(agent_state <> 'DISPATCHED' OR gate_seen_at IS NOT NULL OR updated_at < ${param(f.stale_before)})`);
  }
  if (f.since !== undefined) where.push(`created_at >= ${param(f.since)}`);
  if (f.until !== undefined) {
    const p = param(f.until);
    where.push(`substr(created_at, 1, length(${p})) <= ${p}`);
  }
  return { where, values, param };
}

const whereClause = (where: string[]): string => (where.length > 0 ? `WHERE ${where.join(' AND ')}` : '');

const SPENT_PROBE = (d: Dialect): string =>
  `SELECT contract_id, agent_state FROM handoffs WHERE contract_id ${d.inTexts('$1')}`;

/** The reads (HandoffReads). */
export const handoffReads = {
  *getHandoffByContractId(contractId: string): Op<HandoffRow | undefined> {
    return one((yield* q('SELECT * FROM handoffs WHERE contract_id = $1', [contractId])).rows);
  },
  *getHandoffById(id: number): Op<HandoffRow | undefined> {
    return one((yield* q('SELECT * FROM handoffs WHERE id = $1', [id])).rows);
  },
  followChain,
  /** The row of `contractId` followed to its live tip, in one statement (as `followChain` after the row's read). */
  *chainOfContract(contractId: string): Op<HandoffRow[] | undefined> {
    const [row, ...steps] = stripHop((yield* q(CHAIN_OF_CONTRACT, [contractId, MAX_CHAIN_ROWS])).rows);
    return row === undefined ? undefined : judge(row, steps, false);
  },
  walkBack,
  wholeChain,
  *chainContractIds(row: HandoffRow): Op<string[]> {
    return (yield* wholeChain(row)).map((c) => c.contract_id);
  },
  /** The tip's plan_task_id, else the nearest ancestor's (links inherit it; the walk back is a safety net). */
  *planTaskBinding(tip: HandoffRow): Op<string | null> {
    if (tip.plan_task_id !== null) return tip.plan_task_id;
    return (yield* walkBack(tip)).find((c) => c.plan_task_id !== null)?.plan_task_id ?? null;
  },
  *spentProbe(contractIds: readonly string[]): Op<Map<string, string>> {
    const out = new Map<string, string>();
    if (contractIds.length === 0) return out;
    const { rows } = yield* q<{ contract_id: string; agent_state: string }>(SPENT_PROBE, [contractIds]);
    for (const r of rows) out.set(r.contract_id, r.agent_state);
    return out;
  },
  /** `contract list`: every filter before LIMIT, `created_at DESC, id DESC` (byte order). */
  *listHandoffs(f: HandoffFilters): Op<HandoffRow[]> {
    const { where, values, param } = whereOf(f);
    if (f.after !== undefined) where.push(afterKey(f.after, param));
    const text = `SELECT * FROM handoffs ${whereClause(where)}
               ORDER BY created_at DESC, id DESC LIMIT ${param(f.limit)}`;
    return (yield* q(text, values)).rows.map(toHandoffRow);
  },
  /** How many rows the filters match, whatever the page (`contract list --total`). */
  *countHandoffs(f: HandoffFilters): Op<number> {
    const { where, values } = whereOf(f);
    const { rows } = yield* q<{ n: string | number }>(
      `SELECT COUNT(*) AS n FROM handoffs ${whereClause(where)}`,
      values,
    );
    return Number(rows[0]?.n ?? 0);
  },
  /** Every row carrying `harnessId` (continuation links inherit it, so one chain may hold several). */
  *rowsWithHarnessId(harnessId: string): Op<HandoffRow[]> {
    return (yield* q('SELECT * FROM handoffs WHERE harness_id = $1 ORDER BY id', [harnessId])).rows.map(toHandoffRow);
  },
};

const changed = function* (text: string, values: readonly unknown[]): Op<boolean> {
  return (yield* q(text, values)).rowCount === 1;
};

/**
 * Revision `rev` of the saved draft onto its row while DISPATCHED or IN_PROGRESS and holding an older revision; never
 * creates or closes a row. The UPDATE re-checks both conditions under the row's lock.
 */
function* mirrorEnvelope(contractId: string, json: string, rev: number): Op<MirrorOutcome> {
  const updated = yield* q(
    `UPDATE handoffs SET raw_handoff_json = $1, updated_at = handoff_now(), mirror_rev = $3
      WHERE contract_id = $2 AND agent_state IN ('DISPATCHED','IN_PROGRESS') AND mirror_rev < $3 RETURNING id`,
    [json, contractId, rev],
  );
  if (updated.rowCount > 0) return 'mirrored';
  return mirrorMiss((yield* q<{ mirror_rev: number | string }>(MIRROR_REV, [contractId])).rows[0], rev);
}

/** A row's mirror revision (SQLite's mirror reads it first, without the write lock). */
export const MIRROR_REV = 'SELECT mirror_rev FROM handoffs WHERE contract_id = $1';

/** The writes (HandoffWrites, and the mirror). */
export const handoffWrites = {
  /** The DISPATCHED / never_finalized row. */
  *insertBirthRow(b: Omit<BirthRow, 'now'>): Op<HandoffRow> {
    const { rows } = yield* q(
      `INSERT INTO handoffs (contract_id, agent_id, workspace, agent_state, cut_reason, raw_handoff_json, kind,
                             plan_task_id, parent_handoff_id, brief_id, continues_handoff_id, harness_id, goal,
                             consolidation, require_receipt, verification, checks_json, can_write_json, acceptance_json,
                             require_approval_json, created_at, updated_at)
       VALUES ($1, $2, $3, 'DISPATCHED', 'never_finalized', $4, $5, $6, $7, $8, NULL, $9, $10, $11, $12, $13, $14, $15,
               $16, $17, handoff_now(), handoff_now())
       RETURNING *`,
      [
        b.contract_id,
        b.agent_id,
        b.workspace,
        b.raw_handoff_json,
        b.kind,
        b.plan_task_id,
        b.parent_handoff_id,
        b.brief_id,
        b.harness_id,
        b.goal,
        b.consolidation ? 1 : 0,
        b.require_receipt ? 1 : 0,
        b.verification ?? 'any',
        b.checks_json ?? null,
        b.can_write_json,
        b.acceptance_json,
        b.require_approval_json ?? null,
      ],
    );
    return toHandoffRow(rows[0]);
  },
  /** The claim: set-once; false when the row already carries a harness id. */
  setHarnessIdIfNull: (id: number, harnessId: string): Op<boolean> =>
    changed('UPDATE handoffs SET harness_id = $1, updated_at = handoff_now() WHERE id = $2 AND harness_id IS NULL', [
      harnessId,
      id,
    ]),
  /** Backstop capture of an open row: never touches a closed row; false when a finalize won the race. */
  captureOpenRow: (c: CaptureOpen): Op<boolean> =>
    changed(
      `UPDATE handoffs SET agent_state = 'IN_PROGRESS', cut_reason = 'backstop_capture', raw_handoff_json = $1,
              harness_id = COALESCE(harness_id, $2), updated_at = handoff_now()
        WHERE id = $3 AND agent_state IN ('DISPATCHED','IN_PROGRESS')`,
      [c.json, c.harnessId, c.id],
    ),
  /** Backstop capture of a draft without a row: inserted, or nothing when a row appeared meanwhile. */
  captureNewRow: (c: CaptureNew): Op<boolean> =>
    changed(
      `INSERT INTO handoffs (contract_id, agent_id, workspace, agent_state, cut_reason, raw_handoff_json, harness_id,
                             created_at, updated_at)
       VALUES ($1, $2, $3, 'IN_PROGRESS', 'backstop_capture', $4, $5, handoff_now(), handoff_now())
       ON CONFLICT (contract_id) DO NOTHING`,
      [c.contractId, c.agentId, c.workspace, c.json, c.harnessId],
    ),
  /** The finalize UPSERT; undefined when the row is COMPLETE (nothing written). */
  *upsertFinalRow(r: Omit<FinalRow, 'now'>): Op<number | undefined> {
    const { rows } = yield* q<{ id: number }>(
      `INSERT INTO handoffs (contract_id, agent_id, workspace, agent_state, cut_reason, raw_handoff_json,
                             plan_task_id, created_at, updated_at, finalized_at, mirror_rev, receipt_freshness_json)
       VALUES ($1, $2, $3, $4, NULL, $5, $6, handoff_now(), handoff_now(), handoff_now(), $7, $8)
       ${FINAL_ROW_MERGE}`,
      [
        r.contract_id,
        r.agent_id,
        r.workspace,
        r.agent_state,
        r.json,
        r.plan_task_id,
        r.mirror_rev ?? 0,
        r.receipt_freshness_json ?? null,
      ],
    );
    return rows[0]?.id;
  },
  /**
   * The link row after `parent` (a closed live tip), inheriting its bindings as stored now; undefined when a link
   * exists (ON CONFLICT DO NOTHING); CHAIN_TOO_LONG when it would be the chain's 65th row.
   */
  *insertContinuation(parent: HandoffRow, newContractId: string, seedJson: string): Op<HandoffRow | undefined> {
    if ((yield* walkBack(parent)).length >= MAX_CHAIN_ROWS) throw chainTooLong(parent.contract_id);
    const { rows } = yield* q(
      `INSERT INTO handoffs (contract_id, agent_id, workspace, agent_state, cut_reason, raw_handoff_json, kind,
                             plan_task_id, parent_handoff_id, brief_id, continues_handoff_id, harness_id, goal,
                             consolidation, require_receipt, verification, checks_json, can_write_json, acceptance_json,
                             require_approval_json, created_at, updated_at)
       SELECT $1, agent_id, workspace, 'DISPATCHED', 'never_finalized', $2, kind,
              plan_task_id, parent_handoff_id, brief_id, id, harness_id, goal,
              consolidation, require_receipt, verification, checks_json, can_write_json, acceptance_json,
              require_approval_json, handoff_now(), handoff_now()
         FROM handoffs WHERE id = $3
       ON CONFLICT DO NOTHING
       RETURNING *`,
      [newContractId, seedJson, parent.id],
    );
    return one(rows);
  },
  mirrorEnvelope,
  /** gate_seen_at to the store's clock; updated_at is left alone (it measures the turn's own writes). */
  markGateSeen: (contractId: string): Op<boolean> =>
    changed('UPDATE handoffs SET gate_seen_at = handoff_now() WHERE contract_id = $1', [contractId]),
  /** Dispatch's test base (migration 0008), in the birth row's transaction; false when the row has one already. */
  setTestBase: (id: number, json: string): Op<boolean> =>
    changed('UPDATE handoffs SET test_base_json = $1 WHERE id = $2 AND test_base_json IS NULL', [json, id]),
  /** Finalize's test-change detection; a continuation without a base of its own takes the inherited one. */
  setTestChanges: (id: number, json: string, baseJson: string | null): Op<boolean> =>
    changed('UPDATE handoffs SET test_changes_json = $1, test_base_json = COALESCE(test_base_json, $2) WHERE id = $3', [
      json,
      baseJson,
      id,
    ]),
  /** The claim token's sha256, set once (migration 0010). */
  setClaimTokenHash: (id: number, sha256: string): Op<boolean> =>
    changed('UPDATE handoffs SET claim_token_sha256 = $1 WHERE id = $2 AND claim_token_sha256 IS NULL', [sha256, id]),
};
