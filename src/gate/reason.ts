/**
 * The gate's texts: the block reason on stderr (summary, body by code, attempt line)
 * and the user-facing `systemMessage` of an excused truncation or a trip. Pure string building.
 */
import { CLOSE_ORDER } from '../dispatch/block.js';

export interface GateError {
  code: string;
  path: string;
  detail: string;
}

export interface LaneNote {
  lane: 'draft_id' | 'harness_id' | 'prompt_block';
  note: string;
}

/** Why the stop is blocked; one variant per kind of reason. */
export type BlockCause =
  | { kind: 'missing'; lanes: LaneNote[]; candidates: string[]; harnessValue?: string; harnessField: string }
  | { kind: 'unfinalized'; contractId: string; state: string | null; cutReason: string | null; captured: boolean }
  | { kind: 'verdict'; contractId: string; state: string; errors: GateError[]; repair: string }
  | { kind: 'blind'; contractId: string; planTaskId: string; errors: GateError[] }
  | { kind: 'receipt'; contractId: string; state: string; errors: GateError[] };

export interface AttemptInfo {
  /** No key: the turn has no ceiling. */
  key?: string;
  attempt?: number;
  max: number;
  previousCodes?: string[];
  /** The counter could not be written: the verdict stands uncounted. */
  counterError?: string;
  /** This block's nonce: the harness's feedback record of it proves the block was delivered. */
  nonce?: string;
}

const CONTINUATION =
  'The row is closed: your next handoff contract set/add/fill --draft-id on it opens a continuation contract (the write prints its id); repair the envelope there and finalize that contract.';

const errorLines = (errors: GateError[]): string[] => errors.map((e) => `  ${e.code} [${e.path}]: ${e.detail}`);
const codesOf = (errors: GateError[]): string => [...new Set(errors.map((e) => e.code))].join(', ');

function summary(c: BlockCause): string {
  switch (c.kind) {
    case 'missing':
      return 'no contract was found for this turn (ROW_NOT_FOUND)';
    case 'unfinalized':
      return `contract ${c.contractId} was never finalized (ROW_NOT_FINALIZED)`;
    case 'verdict':
      return `the stored envelope of contract ${c.contractId} (${c.state}) fails the full check: ${codesOf(c.errors)}`;
    case 'blind':
      return `contract ${c.contractId} is bound to plan task ${c.planTaskId} and closed COMPLETE (BLIND_VERIFICATION_REQUIRED)`;
    case 'receipt':
      return `the verification receipts of contract ${c.contractId} (${c.state}) fail the check: ${codesOf(c.errors)}`;
  }
}

function body(c: BlockCause): string[] {
  switch (c.kind) {
    case 'missing': {
      const lines = ['Lanes tried:', ...c.lanes.map((l) => `  ${l.lane}: ${l.note}`)];
      if (c.candidates.length > 0) lines.push(`Candidates (ambiguous): ${c.candidates.join(', ')}`);
      const claimValue = c.harnessValue ?? `<${c.harnessField}: not in the hook input>`;
      lines.push(
        'The text of your last message is not consulted: only a finalized contract in the store counts.',
        'If you were given a contract block, run: handoff contract finalize --draft-id <contract_id from the block>',
        `Otherwise: handoff contract init, build the envelope, handoff contract finalize --draft-id <draft_id>, then handoff contract claim --draft-id <draft_id> --harness-id ${claimValue} --claim-token <the claim_token init printed>`,
      );
      return lines;
    }
    case 'unfinalized':
      return [
        `Contract ${c.contractId}: when you stopped, ${c.state === null ? 'it had no row (only a draft)' : `its row was ${c.state} (cut_reason ${c.cutReason ?? 'null'})`}: not finalized.`,
        c.captured
          ? 'Your draft was captured into the store as IN_PROGRESS (cut_reason backstop_capture); that is not a close.'
          : 'Nothing was captured (no usable draft, or the capture could not be written).',
        `Set a closing agent_status.agent_state last (one of ${CLOSE_ORDER}), then run:`,
        `  handoff contract finalize --draft-id ${c.contractId}`,
      ];
    case 'verdict':
      return [...errorLines(c.errors), '', c.repair, '', CONTINUATION];
    case 'blind':
      return [
        ...errorLines(c.errors),
        `This turn is bound to plan task ${c.planTaskId}: a bound producer cannot close COMPLETE. Close NEEDS_VERIFICATION and propose evidence_report.verification.result; a verifier judges it.`,
        CONTINUATION,
      ];
    case 'receipt':
      return [
        ...errorLines(c.errors),
        `Record a receipt with handoff evidence run --draft-id <id> -- <command> (or handoff contract verify --draft-id <id>) and cite its id in evidence_report.verification.receipt.`,
        CONTINUATION,
      ];
  }
}

/**
 * The breaker's wording counts blocks delivered against the blocks the limit allows: with
 * `--max-rejections m` at most m−1 blocks are delivered and the m-th rejection trips. Every message says it so:
 * "block 1 of 2", "block 2 of 2", then "gave up after block 2 of 2".
 */
export const allowedBlocks = (max: number): number => max - 1;

/** How a trip words its giving up: blocks delivered against the blocks the limit allows. */
export function gaveUpText(attempts: number, max: number): string {
  const allowed = allowedBlocks(max);
  return allowed === 0
    ? `gave up without blocking (--max-rejections ${max} allows no block)`
    : `gave up after block ${attempts - 1} of ${allowed}`;
}

export function attemptLine(a: AttemptInfo): string {
  const line = attemptText(a);
  return a.nonce === undefined ? line : `${line}\n(handoff gate nonce: ${a.nonce})`;
}

function attemptText(a: AttemptInfo): string {
  if (a.counterError !== undefined) {
    return `The rejection ceiling is unavailable for this stop (the counter could not be written: ${a.counterError}).`;
  }
  if (a.key === undefined || a.attempt === undefined) return 'No rejection ceiling for this turn.';
  const allowed = allowedBlocks(a.max);
  const prev =
    a.previousCodes !== undefined && a.previousCodes.length > 0
      ? ` Previous block: ${a.previousCodes.join(', ')}.`
      : '';
  return `This is block ${a.attempt} of ${allowed}: after block ${allowed} of ${allowed} the next rejected stop closes the turn degraded and reports it incomplete. Do not repeat the same answer; if you cannot comply, close BLOCKED with a failure_report.${prev}`;
}

/** The whole block reason; `notes` are extra lines (a capture that failed, ...). */
export function blockReason(cause: BlockCause, attempt: AttemptInfo, notes: string[] = []): string {
  return [`[CONTRACT REJECTED] ${summary(cause)}`, ...body(cause), ...notes, attemptLine(attempt)].join('\n');
}

/** The one-line detail of ROW_NOT_FOUND / ROW_NOT_FINALIZED in `errors` (path ""). */
export function rowErrorDetail(cause: BlockCause): string {
  if (cause.kind === 'missing')
    return `no contract was found for this turn (lanes: ${cause.lanes.map((l) => l.lane).join(', ')})`;
  if (cause.kind === 'unfinalized') {
    return `contract ${cause.contractId} is ${cause.state === null ? 'only a draft' : `${cause.state} (cut_reason ${cause.cutReason ?? 'null'})`}; finalize it in a closing state`;
  }
  return summary(cause);
}

export function excusedMessage(
  stopReason: string,
  contractId: string | undefined,
  how: string,
  aborted = false,
): string {
  const what =
    contractId === undefined
      ? 'no contract was found for this turn'
      : `contract ${contractId} is not complete (${how})`;
  return `handoff: turn ${aborted ? 'stopped by the user' : 'cut by the harness'} (${stopReason}); ${what}.`;
}

/** `attempts`: the key's counted rejections (the trip included); `max`: --max-rejections. */
export function tripMessage(
  attempts: number,
  max: number,
  agent: string,
  contractId: string | undefined,
  codes: string[],
): string {
  return `handoff: contract gate ${gaveUpText(attempts, max)}; ${agent} closed DEGRADED; contract ${contractId ?? 'none'} is NOT complete (last: ${codes.join(', ')}).`;
}
