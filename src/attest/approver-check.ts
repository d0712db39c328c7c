/** The approver policy folded into a cross-check verdict (the one call site: src/approvals/store-verdict.ts). */
import type { StoreReads } from '../store/store.js';
import type { ValidationResult } from '../validator/types.js';
import { approverKeys, asValidationError, judgeApproval } from './approver.js';

export async function approverCross(
  verdict: ValidationResult,
  reads: Pick<StoreReads, 'listAttestations'>,
  id: string,
  fingerprint: string,
  where: { env: NodeJS.ProcessEnv; cwd: string },
): Promise<ValidationResult> {
  const keys = approverKeys(where.env, where.cwd);
  if (keys === undefined) return verdict;
  const finding = await judgeApproval(reads, id, fingerprint, keys);
  if (finding === undefined) return verdict;
  const errors = [...verdict.errors, asValidationError(finding)];
  const codes = verdict.codes.includes(finding.code as never)
    ? verdict.codes
    : [...verdict.codes, finding.code as never];
  return { ok: false, errors, codes, repair: verdict.repair };
}
