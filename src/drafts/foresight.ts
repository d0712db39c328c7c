/**
 * Foresight: a write that leaves the draft in a closing state is stored, but if `finalize`
 * will refuse it on a row rule the write can already see, the writer hears it now instead of at finalize:
 * AGENT_ID_MISMATCH (step 5), BLIND_VERIFICATION_REQUIRED (step 8), RECEIPT_REQUIRED (step 9b). Pure; the row's
 * bindings are asked for only when the state is a closing one, so an ordinary write reads nothing more.
 */
import { CLOSING_STATE_SET, type JsonObject } from '../envelope/vocabulary.js';
import { agentIdRefusal, blindVerificationRefusal, envelopeState } from '../finalize/refusals.js';
import { citedReceipts, requiredIssue } from '../receipts/required.js';
import { policyIssues } from '../finalize/verification-policy.js';
import type { VerificationPolicy } from '../store/handoff-row.js';

export interface FinalizeWarning {
  code: string;
  detail: string;
}

/** What finalize reads from the contract's row: its plan-task binding and the dispatch's --require-receipt. */
export interface RowBindings {
  planTaskId: string | null;
  requireReceipt: boolean;
  /** The dispatch's verification policy ('any' without a dispatched row). */
  verification?: VerificationPolicy;
}

/** `envelope` is the canonical envelope about to be saved under `draftId`; `bindings` is asked at most once. */
export function foreseeRefusals(envelope: JsonObject, draftId: string, bindings: () => RowBindings): FinalizeWarning[] {
  const state = envelopeState(envelope);
  if (state === undefined || !CLOSING_STATE_SET.has(state)) return [];
  const row = bindings();
  const warnings: FinalizeWarning[] = [];
  for (const refusal of [agentIdRefusal(draftId, envelope), blindVerificationRefusal(state, row.planTaskId)]) {
    if (refusal !== undefined) warnings.push({ code: refusal.code, detail: refusal.message });
  }
  for (const issue of requiredIssue(envelope, citedReceipts(envelope), row.requireReceipt)) {
    warnings.push({ code: issue.code, detail: issue.detail });
  }
  for (const issue of policyIssues(envelope, row.verification ?? 'any')) {
    if (!warnings.some((w) => w.code === issue.code)) warnings.push({ code: issue.code, detail: issue.detail });
  }
  return warnings;
}

/** The notice line (stderr, both modes). */
export const foresightNotice = (w: FinalizeWarning): string => `[WILL BE REFUSED AT FINALIZE] ${w.code}: ${w.detail}`;
