/**
 * `approval request`: a pending approval for exact content, and
 * the ready-to-run `handoff contract fill --json '…'` line that writes that content byte for byte together with the
 * approval id (`set` would parse content such as `42` or `true` as JSON, and a retyped copy would not match the
 * fingerprint).
 */
import { agentPrefix } from '../ids.js';
import type { Env } from '../paths.js';
import { shellQuote } from '../receipts/quote.js';
import type { ApprovalRow } from '../store/approvals.js';
import { storeWriteRefused } from '../store/store-errors.js';
import { isConstraintViolation } from '../store/store.js';

export interface ApprovalRequest {
  env: Env;
  cwd: string;
  content: string;
  workspace: string;
  draftId?: string;
  agentId?: string;
}

export interface RequestedApproval {
  row: ApprovalRow;
  /** The fill line: exact_content JSON-escaped, the whole patch single-quoted for a POSIX shell. */
  fillCommand: string;
}

/** The fill line for an approval: `handoff contract fill [--draft-id ID | --agent-id ID] --json '<patch>'`. */
export function approvalFillCommand(approvalId: string, content: string, addressing: { draftId?: string; agentId?: string }): string {
  const patch = JSON.stringify({ approval_request: { exact_content: content, approval_id: approvalId } });
  const target =
    addressing.draftId !== undefined ? ` --draft-id ${addressing.draftId}` : addressing.agentId !== undefined ? ` --agent-id ${addressing.agentId}` : '';
  return `handoff contract fill${target} --json ${shellQuote(patch)}`;
}

/** Inserts the pending approval (creating the store if needed) and builds its fill line. */
export async function requestApproval(req: ApprovalRequest): Promise<RequestedApproval> {
  const { openStore } = await import('../store/open-store.js');
  const store = (await openStore(req.env, req.cwd, 'writer', { create: true }))!;
  let row: ApprovalRow;
  try {
    row = await store.tx((t) =>
      t.insertApproval({
        workspace: req.workspace,
        agent_id: req.draftId !== undefined ? agentPrefix(req.draftId) : (req.agentId ?? null),
        contract_id: req.draftId ?? null,
        exact_content: req.content,
      }),
    );
  } catch (e) {
    // Content the store cannot hold (on PostgreSQL a NUL character): refused, nothing written.
    if (isConstraintViolation(e)) throw storeWriteRefused(store.location, 'the approval request', (e as Error).message);
    throw e;
  } finally {
    await store.close();
  }
  return { row, fillCommand: approvalFillCommand(row.id, req.content, { draftId: req.draftId, agentId: req.agentId }) };
}
