/**
 * The `handoffs` statements of the PostgreSQL store: the same rows and rules as
 * handoffs.ts, chain.ts, dispatch-rows.ts, finalize-row.ts and handoff-list.ts, in PostgreSQL's dialect. Row times
 * are `handoff_now()`, the server's clock. Continuation chains are read in one round trip each way (a recursive
 * query bounded past the 64-row limit), then judged as chain.ts judges them.
 */
import { chainBroken, chainTooLong, MAX_CHAIN_ROWS } from './chain.js';
import type { BirthRow } from './dispatch-rows.js';
import { FINAL_ROW_MERGE, type FinalRow } from './finalize-row.js';
import { EXACT_FILTERS, type HandoffFilters } from './handoff-filters.js';
import { mirrorMiss, toHandoffRow, type HandoffRow, type MirrorOutcome } from './handoff-row.js';
import { afterKey } from './page.js';
import type { Run } from './pg-driver.js';
import type { CaptureNew, CaptureOpen } from './store.js';

type Raw = Record<string, unknown>;

const one = (rows: Raw[]): HandoffRow | undefined => (rows[0] === undefined ? undefined : toHandoffRow(rows[0]));

export const getByContractId = async (run: Run, contractId: string): Promise<HandoffRow | undefined> =>
  one((await run('SELECT * FROM handoffs WHERE contract_id = $1', [contractId])).rows);

export const getById = async (run: Run, id: number): Promise<HandoffRow | undefined> =>
  one((await run('SELECT * FROM handoffs WHERE id = $1', [id])).rows);

/** Rows of a recursive walk without the walk's own `hop` column. */
const stripHop = (rows: Raw[]): HandoffRow[] => rows.map(({ hop: _hop, ...rest }) => toHandoffRow(rest));

/**
 * The rows one way along a chain from `from`, nearest first, up to one past the legal length (so a too-long chain is
 * seen as such; a loop repeats until then). `next`: the links that continue a row; `back`: the rows a row continues.
 */
async function walk(run: Run, from: number, way: 'next' | 'back'): Promise<HandoffRow[]> {
  const [first, step] =
    way === 'next'
      ? ['h.continues_handoff_id = $1', 'h.continues_handoff_id = w.id']
      : ['h.id = $1', 'h.id = w.continues_handoff_id'];
  const { rows } = await run(
    `WITH RECURSIVE w AS (
       SELECT h.*, 1 AS hop FROM handoffs h WHERE ${first}
       UNION ALL
       SELECT h.*, w.hop + 1 FROM w JOIN handoffs h ON ${step} WHERE w.hop <= $2
     ) SELECT * FROM w ORDER BY hop`,
    [from, MAX_CHAIN_ROWS],
  );
  return stripHop(rows);
}

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

export const followChain = async (run: Run, row: HandoffRow): Promise<HandoffRow[]> =>
  judge(row, await walk(run, row.id, 'next'), false);

/** The row of `contractId` followed to its live tip, in one statement (as `followChain` after `getByContractId`). */
export async function chainOfContract(run: Run, contractId: string): Promise<HandoffRow[] | undefined> {
  const { rows } = await run(
    `WITH RECURSIVE w AS (
       SELECT h.*, 0 AS hop FROM handoffs h WHERE h.contract_id = $1
       UNION ALL
       SELECT h.*, w.hop + 1 FROM w JOIN handoffs h ON h.continues_handoff_id = w.id WHERE w.hop <= $2
     ) SELECT * FROM w ORDER BY hop`,
    [contractId, MAX_CHAIN_ROWS],
  );
  const [row, ...steps] = stripHop(rows);
  return row === undefined ? undefined : judge(row, steps, false);
}

export const walkBack = async (run: Run, row: HandoffRow): Promise<HandoffRow[]> =>
  judge(row, row.continues_handoff_id === null ? [] : await walk(run, row.continues_handoff_id, 'back'), true);

export async function spentProbe(run: Run, contractIds: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (contractIds.length === 0) return out;
  const { rows } = await run<{ contract_id: string; agent_state: string }>(
    'SELECT contract_id, agent_state FROM handoffs WHERE contract_id = ANY($1::text[])',
    [contractIds],
  );
  for (const r of rows) out.set(r.contract_id, r.agent_state);
  return out;
}

/** `contract list`: every filter before LIMIT, `created_at DESC, id DESC` (byte order, as SQLite). */
export async function listHandoffs(run: Run, f: HandoffFilters): Promise<HandoffRow[]> {
  const { where, values, param } = whereOf(f);
  if (f.after !== undefined) where.push(afterKey(f.after, param));
  const sql = `SELECT * FROM handoffs ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
               ORDER BY created_at DESC, id DESC LIMIT ${param(f.limit)}`;
  return (await run(sql, values)).rows.map(toHandoffRow);
}

/** How many rows the filters match, whatever the page (`contract list --total`). */
export async function countHandoffs(run: Run, f: HandoffFilters): Promise<number> {
  const { where, values } = whereOf(f);
  const sql = `SELECT COUNT(*) AS n FROM handoffs ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}`;
  return Number((await run<{ n: string | number }>(sql, values)).rows[0].n);
}

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

export const rowsWithHarnessId = async (run: Run, harnessId: string): Promise<HandoffRow[]> =>
  (await run('SELECT * FROM handoffs WHERE harness_id = $1 ORDER BY id', [harnessId])).rows.map(toHandoffRow);

/** The DISPATCHED / never_finalized row. */
export async function insertBirthRow(run: Run, b: Omit<BirthRow, 'now'>): Promise<HandoffRow> {
  const { rows } = await run(
    `INSERT INTO handoffs (contract_id, agent_id, workspace, agent_state, cut_reason, raw_handoff_json, kind,
                           plan_task_id, parent_handoff_id, brief_id, continues_handoff_id, harness_id, goal,
                           consolidation, require_receipt, verification, checks_json, can_write_json, acceptance_json,
                           require_approval_json, created_at, updated_at)
     VALUES ($1, $2, $3, 'DISPATCHED', 'never_finalized', $4, $5, $6, $7, $8, NULL, $9, $10, $11, $12, $16, $17, $13, $14,
             $15,
             handoff_now(), handoff_now())
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
      b.can_write_json,
      b.acceptance_json,
      b.require_approval_json ?? null,
      b.verification ?? 'any',
      b.checks_json ?? null,
    ],
  );
  return toHandoffRow(rows[0]);
}

export const setHarnessIdIfNull = async (run: Run, id: number, harnessId: string): Promise<boolean> =>
  (
    await run('UPDATE handoffs SET harness_id = $1, updated_at = handoff_now() WHERE id = $2 AND harness_id IS NULL', [
      harnessId,
      id,
    ])
  ).rowCount === 1;

export const captureOpenRow = async (run: Run, c: CaptureOpen): Promise<boolean> =>
  (
    await run(
      `UPDATE handoffs SET agent_state = 'IN_PROGRESS', cut_reason = 'backstop_capture', raw_handoff_json = $1,
              harness_id = COALESCE(harness_id, $2), updated_at = handoff_now()
        WHERE id = $3 AND agent_state IN ('DISPATCHED','IN_PROGRESS')`,
      [c.json, c.harnessId, c.id],
    )
  ).rowCount === 1;

export const captureNewRow = async (run: Run, c: CaptureNew): Promise<boolean> =>
  (
    await run(
      `INSERT INTO handoffs (contract_id, agent_id, workspace, agent_state, cut_reason, raw_handoff_json, harness_id,
                             created_at, updated_at)
       VALUES ($1, $2, $3, 'IN_PROGRESS', 'backstop_capture', $4, $5, handoff_now(), handoff_now())
       ON CONFLICT (contract_id) DO NOTHING`,
      [c.contractId, c.agentId, c.workspace, c.json, c.harnessId],
    )
  ).rowCount === 1;

/** The finalize UPSERT; undefined when the row is COMPLETE. */
export async function upsertFinalRow(run: Run, r: Omit<FinalRow, 'now'>): Promise<number | undefined> {
  const { rows } = await run<{ id: number }>(
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
}

/** The link row after `parent`, inheriting its bindings as stored now; undefined when a link exists. */
export async function insertContinuation(
  run: Run,
  parent: HandoffRow,
  newContractId: string,
  seedJson: string,
): Promise<HandoffRow | undefined> {
  if ((await walkBack(run, parent)).length >= MAX_CHAIN_ROWS) throw chainTooLong(parent.contract_id);
  const { rows } = await run(
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
}

/**
 * Revision `rev` of the saved draft onto its row while DISPATCHED or IN_PROGRESS and holding an older revision; never
 * creates or closes a row. The UPDATE re-checks both conditions under the row's lock.
 */
export async function mirrorEnvelope(run: Run, contractId: string, json: string, rev: number): Promise<MirrorOutcome> {
  const updated = await run(
    `UPDATE handoffs SET raw_handoff_json = $1, updated_at = handoff_now(), mirror_rev = $3
      WHERE contract_id = $2 AND agent_state IN ('DISPATCHED','IN_PROGRESS') AND mirror_rev < $3 RETURNING id`,
    [json, contractId, rev],
  );
  if (updated.rowCount > 0) return 'mirrored';
  return mirrorMiss(
    (await run<{ mirror_rev: string }>('SELECT mirror_rev FROM handoffs WHERE contract_id = $1', [contractId])).rows[0],
    rev,
  );
}

/** Sets gate_seen_at to the server's clock; updated_at is left alone (it measures the turn's own writes). */
export const markGateSeen = async (run: Run, contractId: string): Promise<boolean> =>
  (await run('UPDATE handoffs SET gate_seen_at = handoff_now() WHERE contract_id = $1', [contractId])).rowCount === 1;
