/**
 * The check of a closed tip row: the full verdict on its stored envelope (`source:
 * "row"`, the row's consolidation mark), then, only if that passed, blind verification, then, only if that passed,
 * the test changes finalize stored, then the time-invariant receipt checks and the verification policy (RECEIPT_STALE
 * only as finalize recorded it).
 */
import type { HandoffRow } from '../store/handoff-row.js';
import { join } from 'node:path';
import { dataRoot, type Env } from '../paths.js';
import type { Store } from '../store/store.js';
import { jsonColumn, readStoredJson } from '../store/stored-json.js';
import { storeVerdict } from '../approvals/store-verdict.js';
import type { GateError } from './reason.js';
import { storedTestErrors, TEST_CHANGES_REPAIR } from '../finalize/test-rules.js';
import { HandoffError, isHandoffError } from '../errors.js';

export type CheckResult =
  | { outcome: 'pass' }
  | { outcome: 'verdict_failed'; errors: GateError[]; repair: string }
  | { outcome: 'blind'; errors: GateError[]; planTaskId: string }
  | { outcome: 'receipt'; errors: GateError[] };

export async function checkClosedRow(
  s: Store,
  tip: HandoffRow,
  where: { env: Env; cwd: string },
): Promise<CheckResult> {
  // json_valid() guards the column; an unparsable value reads as undefined and fails the verdict as "not an object".
  const envelope = readStoredJson(tip.raw_handoff_json, jsonColumn);
  // A finalized APPROVAL_REQUEST row whose approval was decided after finalized_at is not a
  // violation (the decision arrived after the turn ended); unresolved, foreign, mismatched or decided before: a block.
  const turnEndedAt = tip.agent_state === 'APPROVAL_REQUEST' ? tip.finalized_at : null;
  // The gate judges a closed turn as finalize does: an executing turn needs an approved approval, or the one it used.
  const options = {
    consolidation: Number(tip.consolidation) === 1,
    source: 'row' as const,
    turnEndedAt,
    approvalUse: 'close' as const,
    citingHandoffId: tip.id,
    citingAgentId: tip.agent_id,
  };
  const verdict = await storeVerdict(envelope, options, s, where, () => s.chainContractIds(tip)).catch((e: unknown) => {
    // The approver policy's key file (HANDOFF_APPROVER_KEYS) is the hook's configuration, not the agent's input: a
    // file the gate cannot use means it cannot decide (a block under --on-store-error block).
    if (isHandoffError(e) && (e.code.startsWith('KEY_') || e.code === 'UNREADABLE_INPUT'))
      throw new HandoffError('APPROVER_KEYS_UNREADABLE', e.message, e.data, e.hint);
    throw e;
  });
  if (!verdict.ok) return { outcome: 'verdict_failed', errors: verdict.errors, repair: verdict.repair };

  // Blind verification reads only (agent_state, plan_task_id): the row's state and the chain's binding.
  if (tip.agent_state === 'COMPLETE') {
    const planTaskId = await s.planTaskBinding(tip);
    if (planTaskId !== null) {
      const detail = `the turn is bound to plan task ${JSON.stringify(planTaskId)}: a bound producer cannot close COMPLETE; close NEEDS_VERIFICATION and propose evidence_report.verification.result (a verifier dispatched with --parent-handoff-id judges it)`;
      return {
        outcome: 'blind',
        planTaskId,
        errors: [{ code: 'BLIND_VERIFICATION_REQUIRED', path: 'agent_status.agent_state', detail }],
      };
    }
  }

  // The test changes finalize detected and stored: read, never computed, never excused.
  const tests = storedTestErrors(tip);
  if (tests.length > 0) return { outcome: 'verdict_failed', errors: tests, repair: TEST_CHANGES_REPAIR };

  // Seam: src/receipts/checks.ts, loaded only when a closed row reaches this step. The specifier is a literal so
  // esbuild bundles the module into dist/cli/handoff.cjs: the CLI never loads a second copy of the code (with its
  // own HandoffError class) from the tsc output, and a missing module is an error, never "no receipt checks".
  // The same check as finalize's and `evidence show --verify`'s: outputs read through the store (blobs on
  // PostgreSQL), output files only from below the evidence root.
  const { checkReceiptsIn } = await import('../receipts/checks.js');
  const errors = await checkReceiptsIn(s, envelope, {
    contractChainIds: await s.chainContractIds(tip),
    requireReceipt: Number(tip.require_receipt) === 1,
    mode: 'gate',
    evidenceRoot: join(dataRoot(where.env, where.cwd), 'evidence'),
  });
  // The verification policy: its pure rules, and under `receipt` the freshness finalize recorded
  // (the gate never fingerprints the tree itself).
  const { policyIssues, recordedFreshnessIssues, rowPolicy } = await import('../finalize/verification-policy.js');
  const seen = new Set(errors.map((e) => `${e.code} ${e.path}`));
  for (const e of [...policyIssues(envelope, rowPolicy(tip)), ...recordedFreshnessIssues(tip, envelope)]) {
    if (!seen.has(`${e.code} ${e.path}`)) errors.push(e);
    seen.add(`${e.code} ${e.path}`);
  }
  return errors.length === 0 ? { outcome: 'pass' } : { outcome: 'receipt', errors };
}
