/**
 * The block of a store or data-root condition under `--on-store-error block`, counted in a file (the store cannot be
 * trusted): under `<root>/gate/` while the data root exists, else in the user's private folder under $TMPDIR.
 */
import { statSync } from 'node:fs';
import { dataRoot } from '../paths.js';
import type { CountResult } from './breaker.js';
import { countBlockInFile, countDelivered, countInFiles } from './file-breaker.js';
import { agentLabel } from './hook-input.js';
import type { AttemptInfo } from './reason.js';
import { proofOf, type GateCall, type GateRun } from './service.js';
import { storeErrorReason, storeTripMessage, type StoreCondition } from './store-condition.js';

/**
 * Counts a store-condition block in a file: under `<root>/gate/` while the data root exists, else (or when that
 * folder is unusable) in the user's private folder under $TMPDIR, so the breaker holds even then.
 */
function countStoreBlock(call: GateCall, key: string, codes: string[]): CountResult & { nonce?: string } {
  const { env, cwd, opts, endTrip } = call;
  let rootExists = false;
  try {
    rootExists = statSync(dataRoot(env, cwd)).isDirectory();
  } catch {
    // absent or not inspectable: count under $TMPDIR
  }
  const proof = proofOf(call);
  return countInFiles(
    (place) =>
      proof === undefined
        ? countBlockInFile(place, env, cwd, key, codes, opts.maxRejections, endTrip)
        : countDelivered(place, env, cwd, key, codes, opts.maxRejections, proof.delivered, proof.continuing),
    rootExists,
  );
}

/**
 * The block of a store or data-root condition, counted in the file breaker (the store cannot be trusted); `count`
 * false: not counted (the answer of the gate's watchdog, which writes nothing).
 */
export function storeErrorBlock(call: GateCall, condition: StoreCondition, count = true): GateRun {
  const { opts } = call;
  const key = call.key?.key;
  const codes = [condition.code];
  const attempt: AttemptInfo = { key, max: opts.maxRejections };
  let tripped = false;
  let counterError: string | undefined;
  if (key !== undefined && count) {
    try {
      const r = countStoreBlock(call, key, codes);
      attempt.attempt = r.attempt;
      attempt.previousCodes = r.previousCodes;
      attempt.nonce = r.nonce;
      tripped = r.tripped;
    } catch (e) {
      counterError = (e as Error).message;
      attempt.counterError = counterError;
      // Nowhere to keep the count: one block per stop, never a loop (a continuation of a block is let go, degraded).
      tripped = call.input?.stopHookActive === true;
    }
  }
  const reason = storeErrorReason(condition, attempt, dataRoot(call.env, call.cwd));
  const systemMessage = tripped
    ? storeTripMessage(
        attempt.attempt ?? opts.maxRejections,
        opts.maxRejections,
        agentLabel(call.input),
        opts.draftId,
        condition,
      )
    : undefined;
  const exit = tripped ? 0 : 2;
  const verdict: Record<string, unknown> = {
    status: 'ok',
    decision: 'block',
    exit,
    source: 'store_error',
    lane: opts.draftId !== undefined ? 'draft_id' : null,
    contract_id: condition.contractId ?? opts.draftId ?? null,
    handoff_id: null,
    agent_state: null,
    cut_reason: null,
    stop_reason: call.stopReason ?? null,
    stop_reason_source: call.stopReasonSource ?? null,
    stop_class: call.stopClass,
    codes: tripped ? [...codes, 'CONTRACT_REJECTION_LIMIT'] : codes,
    errors: [{ code: condition.code, path: '', detail: condition.message }],
    captured: false,
    claimed: false,
    attempt: attempt.attempt ?? null,
    max_rejections: opts.maxRejections,
    tripped,
    breaker_key: key ?? null,
    reason,
    store_error: { code: condition.code, error: condition.message },
  };
  if (systemMessage !== undefined) verdict.systemMessage = systemMessage;
  if (opts.dryRun === true) verdict.dry_run = true;
  if (counterError !== undefined) {
    verdict.counter_error = counterError;
    verdict.count = 'unavailable';
  }
  return { exit, verdict, reason: exit === 2 ? reason : undefined, systemMessage };
}
