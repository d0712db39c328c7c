/**
 * The full verdict with the approval cross-check against an asynchronous store. The validator's
 * lookup is synchronous and pure, so the one approval an envelope can cite is fetched first (decision: prefetch,
 * docs/decisions.md "PostgreSQL store, phase 2"); the citing chain is read only when that approval resolves to a
 * contract, as the validator itself would ask for it.
 */
import type { StoreReads } from '../store/store.js';
import { citedApprovalKey, fullVerdict, type FullVerdictOptions, type ValidationResult } from '../validator/index.js';

/** The environment and directory the approver policy (HANDOFF_APPROVER_KEYS, a path) is read from. */
export interface ApproverWhere {
  env: NodeJS.ProcessEnv;
  cwd: string;
}

type Base = Omit<FullVerdictOptions, 'lookupApproval' | 'approvalChain'>;

/**
 * `reads` null: no store, the cross-check is skipped. `chain` omitted: the approval's contract is not checked
 * against a citing chain (`validate --file`). A store failure while fetching propagates (a store error, not a
 * verdict); it is asked only after the form layer passed, as before.
 */
export async function storeVerdict(
  envelope: unknown,
  options: Base,
  reads: Pick<StoreReads, 'approvalStatus' | 'listAttestations'> | null,
  where: ApproverWhere,
  chain?: () => Promise<readonly string[]>,
): Promise<ValidationResult> {
  if (reads === null) return fullVerdict(envelope, options);
  const key = citedApprovalKey(envelope);
  // Without a resolvable key the lookup is never asked for a row: it answers "not found" like an empty table.
  if (key === undefined) return fullVerdict(envelope, { ...options, lookupApproval: () => ({ found: false }) });
  const form = fullVerdict(envelope, options);
  if (!form.ok) return form;
  const found = await reads.approvalStatus(key);
  // The chain is asked when ownership depends on it: an approval of a contract, or an approved or used one (whose
  // owner, without a contract, is the citing agent: ownership is judged only when there is a citing contract).
  const needsChain =
    found.found && (typeof found.contractId === 'string' || found.status === 'approved' || found.status === 'used');
  const approvalChain = chain !== undefined && needsChain ? await chain() : undefined;
  const verdict = fullVerdict(envelope, {
    ...options,
    lookupApproval: (id) => (id === key ? found : { found: false }),
    approvalChain,
  });
  // The approver policy (HANDOFF_APPROVER_KEYS in the verb's environment: the hook's environment is the authority):
  // loaded only when set and the cited approval is in force.
  if (!found.found || !['approved', 'used'].includes(found.status) || !where.env.HANDOFF_APPROVER_KEYS?.trim())
    return verdict;
  const { approverCross } = await import('../attest/approver-check.js');
  return approverCross(verdict, reads, key, found.fingerprint ?? '', where);
}
