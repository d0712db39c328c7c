/**
 * The verdict of a decided stop: its cause, codes, block reason, user message and the `--json` object. Built once the
 * writes after the verdict are done, or (the gate's budget running out) with those writes abandoned.
 */
import type { CheckResult } from './check.js';
import type { Decision } from './decision.js';
import { agentLabel, harnessField, harnessValue, type HookInput } from './hook-input.js';
import type { LookupResult } from './lookup.js';
import {
  blockReason,
  excusedMessage,
  rowErrorDetail,
  tripMessage,
  type AttemptInfo,
  type BlockCause,
  type GateError,
} from './reason.js';
import type { GateCall, GateRun } from './service.js';
import { GATE_FOLDER } from './store-condition.js';
import type { TipStatus } from './decision.js';

export const tipStatusOf = (lookup: LookupResult, check: CheckResult | undefined): TipStatus => {
  if (lookup.found === undefined) return { kind: 'missing' };
  if (check === undefined) return { kind: 'unfinalized' };
  if (check.outcome === 'pass') return { kind: 'closed', check: 'pass' };
  return { kind: 'closed', check: check.outcome === 'verdict_failed' ? 'verdict_failed' : 'hard_failed' };
};

export function causeOf(
  lookup: LookupResult,
  check: CheckResult | undefined,
  input: HookInput | undefined,
  captured: boolean,
): BlockCause {
  const found = lookup.found;
  if (found === undefined) {
    return {
      kind: 'missing',
      lanes: lookup.lanes,
      candidates: lookup.candidates,
      harnessValue: harnessValue(input),
      harnessField: harnessField(input),
    };
  }
  const tip = found.tip;
  if (check === undefined || tip === undefined) {
    return {
      kind: 'unfinalized',
      contractId: found.contractId,
      state: tip?.agent_state ?? null,
      cutReason: tip?.cut_reason ?? null,
      captured,
    };
  }
  switch (check.outcome) {
    case 'verdict_failed':
      return {
        kind: 'verdict',
        contractId: found.contractId,
        state: tip.agent_state,
        errors: check.errors,
        repair: check.repair,
      };
    case 'blind':
      return { kind: 'blind', contractId: found.contractId, planTaskId: check.planTaskId, errors: check.errors };
    default:
      return {
        kind: 'receipt',
        contractId: found.contractId,
        state: tip.agent_state,
        errors: check.outcome === 'receipt' ? check.errors : [],
      };
  }
}

export function errorsOf(cause: BlockCause): GateError[] {
  if (cause.kind === 'missing') return [{ code: 'ROW_NOT_FOUND', path: '', detail: rowErrorDetail(cause) }];
  if (cause.kind === 'unfinalized') return [{ code: 'ROW_NOT_FINALIZED', path: '', detail: rowErrorDetail(cause) }];
  return cause.errors;
}

/** The block's codes of a verdict (from its cause). */
export const blockCodes = (cause: BlockCause | undefined): string[] =>
  cause === undefined ? [] : [...new Set(errorsOf(cause).map((e) => e.code))];

/** What the writes after the verdict did (or, when the budget ran out, that they were abandoned). */
export interface Writes {
  notes: string[];
  captured: boolean;
  boundByCapture: boolean;
  attempt: AttemptInfo;
  tripped: boolean;
  storeError?: string;
  captureError?: string;
  counterError?: string;
  /** No place could keep the count. */
  countUnavailable?: boolean;
  seenError?: string;
  /** The gate's budget ran out: the writes were abandoned (the verdict stands). */
  abandoned?: boolean;
}

/** The verdict object, the block reason and the user message of a decided stop. */
export function buildRun(
  call: GateCall,
  lookup: LookupResult,
  check: CheckResult | undefined,
  decision: Decision,
  w: Writes,
): GateRun {
  const { opts, input, key, stopReason, stopClass } = call;
  const found = lookup.found;
  const tip = found?.tip;
  const cause = decision.decision === 'block' ? causeOf(lookup, check, input, w.captured) : undefined;
  const errors = cause === undefined ? [] : errorsOf(cause);
  const codes = blockCodes(cause);
  const { attempt, tripped } = w;
  const reason = cause === undefined ? undefined : blockReason(cause, attempt, w.notes);
  let systemMessage: string | undefined;
  if (tripped) {
    systemMessage = tripMessage(
      attempt.attempt ?? opts.maxRejections,
      opts.maxRejections,
      agentLabel(input),
      found?.contractId,
      codes,
    );
    if (w.storeError !== undefined)
      systemMessage += ` (Counted in ${GATE_FOLDER}: the store could not hold the counter: ${w.storeError})`;
  } else if (decision.excused) {
    const how =
      check !== undefined
        ? `closed ${tip?.agent_state}, fails the check`
        : w.captured
          ? 'captured as IN_PROGRESS'
          : 'not finalized';
    systemMessage = excusedMessage(stopReason ?? 'unknown', found?.contractId, how, stopClass === 'abort');
  }
  const exit = decision.decision === 'block' && !tripped ? 2 : 0;
  const verdict: Record<string, unknown> = {
    status: 'ok',
    decision: decision.decision,
    exit,
    source: decision.source,
    lane: found?.lane ?? null,
    contract_id: found?.contractId ?? null,
    handoff_id: tip?.id ?? null,
    agent_state: tip?.agent_state ?? null,
    cut_reason: tip?.cut_reason ?? null,
    stop_reason: stopReason ?? null,
    stop_reason_source: call.stopReasonSource ?? null,
    stop_class: stopClass,
    codes: tripped ? [...codes, 'CONTRACT_REJECTION_LIMIT'] : codes,
    errors,
    captured: w.captured,
    claimed: (found?.claimed ?? false) || w.boundByCapture,
    attempt: attempt.attempt ?? null,
    max_rejections: opts.maxRejections,
    tripped,
    breaker_key: key?.key ?? null,
  };
  if (lookup.candidates.length > 0) verdict.candidates = lookup.candidates;
  if (reason !== undefined) verdict.reason = reason;
  if (systemMessage !== undefined) verdict.systemMessage = systemMessage;
  if (w.captureError !== undefined) verdict.capture_error = w.captureError;
  if (w.counterError !== undefined) verdict.counter_error = w.counterError;
  if (w.countUnavailable === true) verdict.count = 'unavailable';
  if (w.seenError !== undefined) verdict.seen_error = w.seenError;
  if (lookup.claimError !== undefined) verdict.claim_error = lookup.claimError;
  if (w.abandoned === true) verdict.writes_abandoned = true;
  if (opts.dryRun === true) verdict.dry_run = true;
  return { exit, verdict, reason: exit === 2 ? reason : undefined, systemMessage };
}
