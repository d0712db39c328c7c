/** Continuation chains: forward to the live tip, back to the root. */
import { HandoffError } from '../errors.js';
import { guard, hasTable, type Db } from './db.js';
import { toHandoffRow, type HandoffRow } from './handoff-row.js';

/** A chain holds at most 64 rows; a walk that would reach a 65th row stops with CHAIN_TOO_LONG. */
export const MAX_CHAIN_ROWS = 64;

export const chainTooLong = (contractId: string): HandoffError =>
  new HandoffError(
    'CHAIN_TOO_LONG',
    `the continuation chain of ${contractId} would exceed ${MAX_CHAIN_ROWS} rows; no further link is followed or opened`,
    { contract_id: contractId },
    'Start a new contract with `handoff contract init` or a new dispatch.',
  );

export const chainBroken = (contractId: string, why: string): HandoffError =>
  new HandoffError('CHAIN_BROKEN', `the continuation chain of ${contractId} is broken: ${why}`, {
    contract_id: contractId,
  });

/** From `row` forward to the live tip: the list starts with `row` and ends with the tip (`row` itself if no link). */
export function followChain(db: Db, row: HandoffRow): HandoffRow[] {
  return guard(db, () => {
    const next = db.prepare('SELECT * FROM handoffs WHERE continues_handoff_id = ?');
    const out = [row];
    const seen = new Set([row.id]);
    for (let cur = row; ;) {
      const raw = next.get(cur.id) as Record<string, unknown> | undefined;
      if (raw === undefined) return out;
      const link = toHandoffRow(raw);
      if (seen.has(link.id)) throw chainBroken(row.contract_id, `row ${link.id} appears twice`);
      if (out.length >= MAX_CHAIN_ROWS) throw chainTooLong(row.contract_id);
      out.push(link);
      seen.add(link.id);
      cur = link;
    }
  });
}

/** From `row` back to the root: the list starts with `row` and ends with the root (the row that continues none). */
export function walkBack(db: Db, row: HandoffRow): HandoffRow[] {
  return guard(db, () => {
    const byId = db.prepare('SELECT * FROM handoffs WHERE id = ?');
    const out = [row];
    const seen = new Set([row.id]);
    for (let cur = row; cur.continues_handoff_id !== null;) {
      const raw = byId.get(cur.continues_handoff_id) as Record<string, unknown> | undefined;
      if (raw === undefined)
        throw chainBroken(
          row.contract_id,
          `row ${cur.id} continues row ${cur.continues_handoff_id}, which does not exist`,
        );
      const parent = toHandoffRow(raw);
      if (seen.has(parent.id)) throw chainBroken(row.contract_id, `row ${parent.id} appears twice`);
      if (out.length >= MAX_CHAIN_ROWS) throw chainTooLong(row.contract_id);
      out.push(parent);
      seen.add(parent.id);
      cur = parent;
    }
    return out;
  });
}

/** The root of `row`'s chain. */
export const chainRoot = (db: Db, row: HandoffRow): HandoffRow => {
  const back = walkBack(db, row);
  return back[back.length - 1];
};

/** The whole chain of `row`, root → live tip (at most 64 rows). */
export function wholeChain(db: Db, row: HandoffRow): HandoffRow[] {
  const root = chainRoot(db, row);
  const chain = followChain(db, root);
  if (!chain.some((r) => r.id === row.id))
    throw chainBroken(row.contract_id, `row ${row.id} is not reachable from its root`);
  return chain;
}

/** The contract ids of `row`'s whole chain (receipt checks: RECEIPT_FOREIGN). */
export const chainContractIds = (db: Db, row: HandoffRow): string[] => wholeChain(db, row).map((r) => r.contract_id);

/**
 * The plan-task binding of a tip: its own `plan_task_id`, else the nearest ancestor's (links inherit it; the
 * walk back is a safety net). null = unbound.
 */
export function planTaskBinding(db: Db, tip: HandoffRow): string | null {
  if (tip.plan_task_id !== null) return tip.plan_task_id;
  if (!hasTable(db, 'handoffs')) return null;
  for (const r of walkBack(db, tip)) if (r.plan_task_id !== null) return r.plan_task_id;
  return null;
}
