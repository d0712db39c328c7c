/**
 * `approval decide` over the Store interface: one transition, decided inside
 * the write transaction. It holds the approval's lock (`approval:<id>`), the lock finalize also takes for the
 * approval its envelope cites, so on either backend a decision and finalize's re-check never
 * interleave: whichever commits first is what the other sees.
 */
import { attestApproval, type Signer } from '../attest/record.js';
import type { Env } from '../paths.js';
import type { ApprovalRow, ApprovalStatus, DecideResult } from '../store/approvals.js';

/** The lock an approval's decision and a finalize citing it share. */
export const approvalLock = (id: string): string => `approval:${id}`;

export async function decideApproval(
  env: Env,
  cwd: string,
  id: string,
  decision: ApprovalStatus,
  by: string | null,
  note: string | null,
  signer?: Signer,
): Promise<DecideResult> {
  const { approvalNotFound } = await import('../store/approvals.js');
  const { withStore } = await import('../store/open-store.js');
  return withStore(
    env,
    cwd,
    'writer',
    (store) =>
      store.tx(
        async (t) => {
          const result = await t.decideApproval(id, decision, by, note);
          // The decision's statement, signed by the approver's key (or the store's), beside the row it decides.
          if (result.changed) await attestApproval(t, result.row, signer);
          return result;
        },
        { lock: approvalLock(id) },
      ),
    () => {
      throw approvalNotFound(id);
    },
  );
}

/**
 * Approvals matching `filters`, and with `total` how many match whatever the page; none without a store (which is
 * never created).
 */
export async function listApprovals(
  env: Env,
  cwd: string,
  filters: import('../store/approvals.js').ApprovalFilters,
  total = false,
) {
  const { withStore } = await import('../store/open-store.js');
  return withStore(
    env,
    cwd,
    'reader',
    async (store) => ({
      rows: await store.listApprovals(filters),
      total: total ? await store.countApprovals(filters) : undefined,
    }),
    () => ({ rows: [], total: total ? 0 : undefined }),
  );
}

/** One approval by id (a reader: never creates the store). APPROVAL_NOT_FOUND (exit 3) without a store or a row. */
export async function showApproval(env: Env, cwd: string, id: string): Promise<ApprovalRow> {
  const { approvalNotFound } = await import('../store/approvals.js');
  const { withStore } = await import('../store/open-store.js');
  const row = await withStore(
    env,
    cwd,
    'reader',
    (store) => store.getApproval(id),
    () => undefined,
  );
  if (row === undefined) throw approvalNotFound(id);
  return row;
}
