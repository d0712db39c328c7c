/**
 * The verification policy of a dispatched contract: what a COMPLETE close must rest on.
 * `policyIssues` is pure (finalize, the write verbs' foresight and the stop gate share it); `checkIssues` reads the
 * chain's receipts through the store (finalize only); `recordedFreshnessIssues` is the gate's reading of what
 * finalize recorded on the row, so the gate never fingerprints the tree.
 */
import { foldType, isObject, validState } from '../envelope/vocabulary.js';
import type { HandoffRow, VerificationPolicy } from '../store/handoff-row.js';
import { jsonColumn, readStoredJson, stringListColumn } from '../store/stored-json.js';
import { citedReceipts, RECEIPT_PATH, verificationOf } from '../receipts/required.js';
import type { Freshness } from '../receipts/checks.js';
import type { ReceiptRow } from '../receipts/row.js';

export interface PolicyIssue {
  code: 'RECEIPT_REQUIRED' | 'VERIFICATION_TYPE_REQUIRED' | 'CHECK_NOT_RUN' | 'RECEIPT_STALE';
  path: string;
  detail: string;
}

const TYPE_PATH = 'evidence_report.verification.type';
const COMMAND_TYPES: ReadonlySet<string> = new Set(['command', 'code']);

/** The hint of every RECEIPT_REQUIRED under the policy: make a receipt, or hand the turn to a verifier. */
export const RECEIPT_POLICY_HINT =
  'run the check with `handoff evidence run -- <cmd>` (or `handoff contract verify`), set verification.type ' +
  'command with that command and cite the printed R-… id in evidence_report.verification.receipt; or close ' +
  'NEEDS_VERIFICATION so a verifier checks it';

/** A row's policy ('any' for a row without one: born by `contract init`, or before migration 0012). */
export const rowPolicy = (row: HandoffRow | undefined): VerificationPolicy => row?.verification ?? 'any';

/** The row's --check commands. */
export const rowChecks = (row: HandoffRow | undefined): string[] =>
  row === undefined ? [] : (readStoredJson(row.checks_json, stringListColumn) ?? []);

const stateOf = (envelope: unknown): string | undefined =>
  isObject(envelope) && isObject(envelope.agent_status) ? validState(envelope.agent_status.agent_state) : undefined;

/** The policy's own rules on a COMPLETE close: the claim's type, and under `receipt` a cited receipt. */
export function policyIssues(envelope: unknown, policy: VerificationPolicy): PolicyIssue[] {
  if (policy === 'any' || stateOf(envelope) !== 'COMPLETE') return [];
  const word = foldType(verificationOf(envelope)?.type);
  if (policy === 'typed') {
    if (word !== null && word !== '' && word !== 'none') return [];
    return [
      {
        code: 'VERIFICATION_TYPE_REQUIRED',
        path: TYPE_PATH,
        detail:
          'this turn was dispatched with the verification policy typed: COMPLETE needs a typed claim with its ' +
          'companion (type command or code with command, semantic with requires_human, self_review with reviewed); ' +
          'a pass without a type says nothing about what was checked',
      },
    ];
  }
  if (word === null || !COMMAND_TYPES.has(word)) {
    return [
      {
        code: 'RECEIPT_REQUIRED',
        path: TYPE_PATH,
        detail: `this turn was dispatched with the verification policy receipt: COMPLETE needs a command or code claim resting on a receipt; ${RECEIPT_POLICY_HINT}`,
      },
    ];
  }
  if (citedReceipts(envelope).length === 0) {
    return [
      {
        code: 'RECEIPT_REQUIRED',
        path: RECEIPT_PATH,
        detail: `this turn was dispatched with the verification policy receipt: the command claim cites no receipt; ${RECEIPT_POLICY_HINT}`,
      },
    ];
  }
  return [];
}

/**
 * `dispatch --check`: before COMPLETE, each command has a passing receipt in the chain that ran it (argv equality,
 * as a claim matches a receipt) and is not stale. `receipts`: the chain's receipts; `usable` tells whether one
 * is intact and not stale (finalize's integrity and freshness checks).
 */
export function checkIssues(
  envelope: unknown,
  checks: readonly string[],
  receipts: readonly ReceiptRow[],
  ran: (check: string, row: ReceiptRow) => boolean,
  usable: (row: ReceiptRow) => boolean,
): PolicyIssue[] {
  if (checks.length === 0 || stateOf(envelope) !== 'COMPLETE') return [];
  const out: PolicyIssue[] = [];
  for (const check of checks) {
    const candidates = receipts.filter((r) => r.outcome === 'pass' && ran(check, r));
    if (candidates.some(usable)) continue;
    out.push({
      code: 'CHECK_NOT_RUN',
      path: 'evidence_report.verification',
      detail:
        `the dispatch names the check ${JSON.stringify(check)}, and this contract's chain has no passing, fresh receipt of it` +
        (candidates.length > 0 ? ' (every passing one is stale or altered)' : '') +
        `: run \`handoff evidence run -- ${check}\` after your last change`,
    });
  }
  return out;
}

/** What finalize recorded for each cited receipt (the row's receipt_freshness_json). */
export function recordedFreshness(row: HandoffRow): Map<string, Freshness> {
  const out = new Map<string, Freshness>();
  const list = readStoredJson(row.receipt_freshness_json, jsonColumn);
  if (!Array.isArray(list)) return out;
  for (const e of list) {
    if (isObject(e) && typeof e.receipt_id === 'string' && typeof e.freshness === 'string')
      out.set(e.receipt_id, e.freshness as Freshness);
  }
  return out;
}

/** The gate: under `receipt`, a COMPLETE row whose cited receipt was recorded stale (or not recorded) blocks. */
export function recordedFreshnessIssues(row: HandoffRow, envelope: unknown): PolicyIssue[] {
  if (rowPolicy(row) !== 'receipt' || row.agent_state !== 'COMPLETE') return [];
  const recorded = recordedFreshness(row);
  const out: PolicyIssue[] = [];
  for (const c of citedReceipts(envelope)) {
    const f = recorded.get(c.id);
    if (f === 'fresh' || f === 'unknown') continue;
    out.push({
      code: 'RECEIPT_STALE',
      path: c.path,
      detail: `finalize recorded receipt ${c.id} as ${f ?? 'not checked'}; under the verification policy receipt only a fresh receipt closes COMPLETE: re-run the check and finalize again`,
    });
  }
  return out;
}
