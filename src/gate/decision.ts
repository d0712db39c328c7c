/**
 * The decision table as a pure function of what the lookup and the check found. The
 * verdict reads only the store: what the agent said in its last message never makes a turn count as closed.
 */
import type { StopClass } from './stop-class.js';

/**
 * What the turn's contract looks like at its live tip.
 * - `missing`: no lane found a contract (or the id has neither a row nor a draft).
 * - `unfinalized`: the tip row is DISPATCHED or a captured IN_PROGRESS, or there is no row but a draft.
 * - `closed`: the tip row is in a closing state; `check` is the outcome of its check (full verdict, then blind
 *   verification, then the receipt checks).
 */
export type TipStatus =
  { kind: 'missing' } | { kind: 'unfinalized' } | { kind: 'closed'; check: 'pass' | 'verdict_failed' | 'hard_failed' };

export type Verdict = 'allow' | 'block';
export type VerdictSource = 'row' | 'row_unfinalized' | 'row_missing';
export type OnMissing = 'block' | 'allow';

export interface Decision {
  /** The row of the decision table (row 7, an excused turn without a contract, no longer exists). */
  /** 9: the user aborted the turn (allowed whatever the contract, never excused as complete). */
  row: 1 | 2 | 3 | 4 | 5 | 6 | 8 | 9;
  decision: Verdict;
  source: VerdictSource;
  /** An allow granted only because the harness cut the turn (rows 3 and 5; a turn without a contract is never excused). */
  excused: boolean;
}

const sourceOf = (tip: TipStatus): VerdictSource =>
  tip.kind === 'closed' ? 'row' : tip.kind === 'unfinalized' ? 'row_unfinalized' : 'row_missing';

export function decide(tip: TipStatus, stopClass: StopClass, onMissing: OnMissing): Decision {
  const truncated = stopClass === 'truncation';
  // The user stopped the turn: not the agent's choice, so it allows; an incomplete contract is reported (and captured).
  if (stopClass === 'abort' && !(tip.kind === 'closed' && tip.check === 'pass')) {
    return { row: 9, decision: 'allow', source: sourceOf(tip), excused: true };
  }
  switch (tip.kind) {
    case 'closed':
      if (tip.check === 'pass') return { row: 1, decision: 'allow', source: 'row', excused: false };
      // Blind verification and receipt failures are never excused by truncation.
      if (tip.check === 'hard_failed') return { row: 2, decision: 'block', source: 'row', excused: false };
      return truncated
        ? { row: 3, decision: 'allow', source: 'row', excused: true }
        : { row: 4, decision: 'block', source: 'row', excused: false };
    case 'unfinalized':
      return truncated
        ? { row: 5, decision: 'allow', source: 'row_unfinalized', excused: true }
        : { row: 6, decision: 'block', source: 'row_unfinalized', excused: false };
    case 'missing':
      // No contract, no excuse: the agent can write a truncation into its transcript, so only --on-missing decides.
      return { row: 8, decision: onMissing === 'allow' ? 'allow' : 'block', source: 'row_missing', excused: false };
  }
}
