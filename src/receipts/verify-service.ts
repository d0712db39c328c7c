/**
 * `handoff contract verify`: re-runs the tip draft's `evidence_report.verification.command` as a
 * receipt (shell string, current directory), then writes `verification.receipt` and `verification.result` in one
 * validate-on-write update. A closed tip or a missing command is refused before anything runs.
 */
import type { Rendered } from '../render/result.js';
import type { Addressing } from '../drafts/resolve.js';
import { setField } from '../drafts/mutate.js';
import { isObject, type JsonObject } from '../envelope/vocabulary.js';
import { EXIT, HandoffError } from '../errors.js';
import type { Env } from '../paths.js';
import { appendToDraft, notAppendedNotice } from './append.js';
import { resolveContract, tipEnvelope } from './contract.js';
import { resolvedJson } from '../drafts/resolve.js';
import { executeAndRecord, prepareRun, type Sinks } from './execute.js';
import { appendFailedResult, recordedLine } from './output.js';
import { receiptJson, type ReceiptRow } from './row.js';

export interface VerifyRequest {
  env: Env;
  cwd: string;
  addressing: Addressing;
  timeoutMs: number;
  workspaceFlag?: string;
  sinks: Sinks;
  notice: (line: string) => void;
}

/** `verification.command` when it is a non-empty string, else VERIFY_NO_COMMAND (exit 1). */
export function verificationCommand(envelope: JsonObject, draftId: string): string {
  const report = envelope.evidence_report;
  const verification = isObject(report) ? report.verification : undefined;
  const command = isObject(verification) ? verification.command : undefined;
  if (typeof command === 'string' && command.trim() !== '') return command;
  const what = isObject(verification)
    ? 'has no non-empty string command'
    : 'has no evidence_report.verification object';
  throw new HandoffError(
    'VERIFY_NO_COMMAND',
    `draft ${draftId} ${what}; nothing was run`,
    { draft_id: draftId },
    'Set it first: handoff contract fill --json \'{"evidence_report":{"verification":{"type":"command","command":"npm test"}}}\'.',
  );
}

const resultOf = (row: ReceiptRow): string => row.outcome;

export async function contractVerify(req: VerifyRequest): Promise<Rendered> {
  const contract = await resolveContract(req.env, req.cwd, req.addressing, {
    workspaceFlag: req.workspaceFlag,
    notice: req.notice,
  });
  if (contract.closed) {
    throw new HandoffError(
      'VERIFY_CONTRACT_CLOSED',
      `contract ${contract.tipId} is closed (${contract.tipRow?.agent_state ?? 'closed'}); nothing was run`,
      { draft_id: contract.tipId },
      'verify never opens a continuation: a verifier verifies through its own contract (contract dispatch --kind verifier --parent-handoff-id N).',
    );
  }
  const command = verificationCommand(tipEnvelope(req.env, req.cwd, contract), contract.tipId);
  const prepared = await prepareRun(req.env, req.cwd, contract.tipId, req.workspaceFlag);
  const { row } = await executeAndRecord({
    env: req.env,
    cwd: req.cwd,
    contractId: contract.tipId,
    prepared,
    argv: [command],
    shell: true,
    runCwd: req.cwd,
    timeoutMs: req.timeoutMs,
    sinks: req.sinks,
    notice: req.notice,
  });
  const result = resultOf(row);
  const append = await appendToDraft({
    env: req.env,
    cwd: req.cwd,
    contractId: contract.tipId,
    notice: req.notice,
    apply: (base, draftId) => {
      const withReceipt = setField(base, ['evidence_report', 'verification', 'receipt'], row.receipt_id, draftId);
      return setField(withReceipt, ['evidence_report', 'verification', 'result'], result, draftId);
    },
  });
  if (append.kind === 'failed') return appendFailedResult(row, append, { draft_id: contract.tipId });
  const appended = append.kind === 'appended';
  if (!appended) req.notice(notAppendedNotice(row.receipt_id, contract.tipId));
  const base = {
    draft_id: contract.tipId,
    result,
    appended,
    receipt: receiptJson(row),
    ...resolvedJson(contract.resolved),
  };
  const update = appended
    ? `verification.receipt and verification.result were written to draft ${contract.tipId}`
    : `the draft update was skipped: contract ${contract.tipId} closed meanwhile`;
  if (result === 'pass') {
    return {
      json: { status: 'ok', ...base },
      text: `OK: verification passed (receipt ${row.receipt_id}); ${update}.`,
      errText: recordedLine(row),
    };
  }
  const error = `verification ${result === 'fail' ? 'failed' : 'was unproven'}: ${recordedLine(row)}; the receipt was recorded and ${update}`;
  return {
    exit: EXIT.REJECTED,
    json: { status: 'rejected', code: 'RECEIPT_FAILED', error, ...base },
    errText: `Rejected: ${error}`,
  };
}
