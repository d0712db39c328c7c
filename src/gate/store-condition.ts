/**
 * The strict gate: which failures are store or data-root conditions, and the texts of the block they cause under
 * `--on-store-error block`. With the default `allow`, the same failures fail open (exit 1, "stop not gated").
 */
import { isHandoffError } from '../errors.js';
import { isSqliteError } from '../store/store-errors.js';
import { attemptLine, gaveUpText, type AttemptInfo } from './reason.js';

export type OnStoreError = 'block' | 'allow';

export interface StoreCondition {
  code: string;
  message: string;
  /** The contract the gate had found when the condition arose (GATE_BUDGET_EXCEEDED). */
  contractId?: string;
}

/** The folder of the file breaker, for messages. */
export const GATE_FOLDER = '<root>/gate/';

/**
 * A store or data-root condition: every STORE_* and DATA_ROOT_* code, the continuation-chain store errors
 * (CHAIN_TOO_LONG, CHAIN_BROKEN: a damaged store too), an approver key file the gate cannot use
 * (APPROVER_KEYS_UNREADABLE), and a raw SQLite failure. Anything else (bad input, a bug) is not one.
 */
export function storeCondition(e: unknown): StoreCondition | undefined {
  if (isHandoffError(e)) {
    return /^(STORE_|DATA_ROOT_)/.test(e.code) ||
      ['CHAIN_TOO_LONG', 'CHAIN_BROKEN', 'APPROVER_KEYS_UNREADABLE'].includes(e.code)
      ? { code: e.code, message: e.message }
      : undefined;
  }
  if (isSqliteError(e)) return { code: 'STORE_UNREADABLE', message: `${e.code}: ${e.message}` };
  return undefined;
}

export function storeErrorReason(c: StoreCondition, attempt: AttemptInfo, root: string): string {
  const budget = c.code === 'GATE_BUDGET_EXCEEDED';
  return [
    budget
      ? `[CONTRACT REJECTED] the stop cannot be judged: the handoff store did not answer within the gate's time budget (${c.code})`
      : c.code === 'HOOK_INPUT_TIMEOUT'
        ? `[CONTRACT REJECTED] the stop cannot be judged: the hook input did not end within the gate's time budget (${c.code})`
        : `[CONTRACT REJECTED] the stop cannot be judged: the handoff store or data root is unusable (${c.code})`,
    `  ${c.code} []: ${c.message}`,
    `The gate looked in the data root ${root}.`,
    budget
      ? 'The contract was found but could not be judged in time: a stop is only allowed once the store can show a finalized, valid contract.'
      : 'This gate runs with --on-store-error block: a stop is only allowed once the store can show a finalized, valid contract.',
    'Do not change the handoff store or its data root yourself. Report the problem to the user; when the store works again, finalize your contract.',
    attemptLine(attempt),
  ].join('\n');
}

/** The allow of a tripped breaker while the store is unusable: it names the store error. */
export function storeTripMessage(
  attempts: number,
  max: number,
  agent: string,
  contractId: string | undefined,
  c: StoreCondition,
): string {
  return `handoff: contract gate ${gaveUpText(attempts, max)}; ${agent} closed DEGRADED; the store is unusable (${c.code}: ${c.message}); contract ${contractId ?? 'none'} is NOT verified complete.`;
}
