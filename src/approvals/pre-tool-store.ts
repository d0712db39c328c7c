/**
 * The store side of the pre-tool gate, loaded only for a call that matched a pattern: find the run's contract (its
 * block's contract id, else the row bound to the harness's session id), then, in one transaction, pick an approved
 * approval of the contract's chain holding exactly this call (signed by a trusted approver under
 * HANDOFF_APPROVER_KEYS), mark it used by this tool call and state the use (signed with the store's key, as
 * finalize states its `used` transition).
 */
import { approverKeys, judgeApproval } from '../attest/approver.js';
import { attestApprovalUse } from '../attest/record.js';
import { storeSigner } from '../attest/signer.js';
import type { Env } from '../paths.js';
import { openStoreIfAny } from '../store/open-store.js';
import type { HandoffRow } from '../store/handoff-row.js';
import type { ApprovalRow } from '../store/approvals.js';

export interface UseRequest {
  contractId?: string;
  sessionId?: string;
  matchesContent: (exactContent: string) => boolean;
  toolUseId: string;
}

export type UseResult =
  | { kind: 'no_contract' }
  | { kind: 'used'; approvalId: string; contractId: string }
  | { kind: 'none'; contractId: string; note?: string };

/** At most this many approved approvals of one contract are considered. */
const CANDIDATES = 500;

export async function useApproval(env: Env, cwd: string, req: UseRequest): Promise<UseResult> {
  const store = await openStoreIfAny(env, cwd, 'writer');
  if (store === null)
    return req.contractId === undefined ? { kind: 'no_contract' } : { kind: 'none', contractId: req.contractId };
  try {
    let row: HandoffRow | undefined;
    if (req.contractId !== undefined) row = await store.getHandoffByContractId(req.contractId);
    else if (req.sessionId !== undefined) row = (await store.rowsWithHarnessId(req.sessionId)).at(-1);
    if (row === undefined)
      return req.contractId === undefined ? { kind: 'no_contract' } : { kind: 'none', contractId: req.contractId };
    const chain = await store.wholeChain(row);
    const tip = chain[chain.length - 1];
    const ids = chain.map((c) => c.contract_id);
    const keys = approverKeys(env, cwd);
    // The use is stated like finalize's `used` transition: by the store's key (HANDOFF_SIGNING_KEY) when it has one.
    const signer = storeSigner(env, cwd);
    return await store.tx(
      async (t): Promise<UseResult> => {
        const candidates: ApprovalRow[] = [];
        for (const id of ids)
          candidates.push(...(await t.listApprovals({ status: 'approved', contract_id: id, limit: CANDIDATES })));
        const fitting = candidates
          .filter((a) => req.matchesContent(a.exact_content))
          .sort((a, b) => (a.decided_at ?? '').localeCompare(b.decided_at ?? '') || a.id.localeCompare(b.id));
        let note: string | undefined;
        for (const a of fitting) {
          if (keys !== undefined) {
            const finding = await judgeApproval(t, a.id, a.fingerprint, keys);
            if (finding !== undefined) {
              note = `${finding.code}: ${finding.detail}`;
              continue;
            }
          }
          const use = { handoffId: tip.id, contractId: tip.contract_id, toolUseId: req.toolUseId };
          if (await t.markApprovalUsedByCall(a.id, use)) {
            await attestApprovalUse(t, a.id, signer);
            return { kind: 'used', approvalId: a.id, contractId: row.contract_id };
          }
        }
        return { kind: 'none', contractId: row.contract_id, note };
      },
      { lock: tip.contract_id },
    );
  } finally {
    await store.close();
  }
}
