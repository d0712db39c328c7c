/**
 * The check of a closed tip row (dispatch-and-gate.md §4.5): the full verdict on its stored envelope (`source:
 * "row"`, the row's consolidation mark), then, only if that passed, blind verification, then, only if that passed,
 * the time-invariant receipt checks (never RECEIPT_STALE).
 */
import type { Db } from '../store/db.js';
import { approvalLookup, chainContractIds, planTaskBinding, type HandoffRow } from '../store/handoffs.js';
import { fullVerdict } from '../validator/index.js';
import type { GateError } from './reason.js';

export type CheckResult =
  | { outcome: 'pass' }
  | { outcome: 'verdict_failed'; errors: GateError[]; repair: string }
  | { outcome: 'blind'; errors: GateError[]; planTaskId: string }
  | { outcome: 'receipt'; errors: GateError[] };

/** The receipts module's gate entry point, loaded only when a closed row is checked. */
type ReceiptChecker = (
  db: Db | null,
  envelope: unknown,
  opts: { contractChainIds: Iterable<string>; requireReceipt: boolean; mode: 'gate' },
) => GateError[];

/**
 * Seam: src/receipts/checks.ts `checkReceipts(db, envelope, {contractChainIds, requireReceipt, mode: "gate"})`.
 * Imported dynamically; when the module is absent (a build without receipts) no receipt error is reported.
 */
async function loadReceiptChecker(): Promise<ReceiptChecker | undefined> {
  const specifier = '../receipts/checks.js';
  try {
    const mod = (await import(specifier)) as { checkReceipts?: ReceiptChecker };
    return typeof mod.checkReceipts === 'function' ? mod.checkReceipts : undefined;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND') return undefined;
    throw e;
  }
}

function parseEnvelope(json: string): unknown {
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return undefined; // json_valid() guards the column; an unparsable value fails the verdict as "not an object"
  }
}

export async function checkClosedRow(db: Db, tip: HandoffRow): Promise<CheckResult> {
  const envelope = parseEnvelope(tip.raw_handoff_json);
  const verdict = fullVerdict(envelope, { consolidation: tip.consolidation === 1, source: 'row', lookupApproval: approvalLookup(db) });
  if (!verdict.ok) return { outcome: 'verdict_failed', errors: verdict.errors, repair: verdict.repair };

  // Blind verification reads only (agent_state, plan_task_id): the row's state and the chain's binding.
  if (tip.agent_state === 'COMPLETE') {
    const planTaskId = planTaskBinding(db, tip);
    if (planTaskId !== null) {
      const detail = `the turn is bound to plan task ${JSON.stringify(planTaskId)}: a bound producer cannot close COMPLETE; close NEEDS_VERIFICATION and propose evidence_report.verification.result (a verifier dispatched with --parent-handoff-id judges it)`;
      return { outcome: 'blind', planTaskId, errors: [{ code: 'BLIND_VERIFICATION_REQUIRED', path: 'agent_status.agent_state', detail }] };
    }
  }

  const checkReceipts = await loadReceiptChecker();
  if (checkReceipts === undefined) return { outcome: 'pass' };
  const errors = checkReceipts(db, envelope, {
    contractChainIds: chainContractIds(db, tip),
    requireReceipt: tip.require_receipt === 1,
    mode: 'gate',
  });
  return errors.length === 0 ? { outcome: 'pass' } : { outcome: 'receipt', errors };
}
