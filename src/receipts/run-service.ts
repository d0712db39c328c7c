/**
 * `handoff evidence run`: resolve the contract's live tip, check the workspace (and brief), run the
 * command with no lock held, record an immutable receipt, append it to the tip's draft, and exit with the child's
 * own status. The tool's own codes apply only while no receipt is recorded.
 */
import type { Rendered } from '../render/result.js';
import type { Addressing } from '../drafts/resolve.js';
import { addToList } from '../drafts/mutate.js';
import type { Env } from '../paths.js';
import { appendToDraft, notAppendedNotice } from './append.js';
import { resolveContract } from './contract.js';
import { resolvedJson } from '../drafts/resolve.js';
import { childStatus, executeAndRecord, prepareRun, type Sinks } from './execute.js';
import { appendFailedResult, recordedLine } from './output.js';
import { receiptJson, receiptSummary } from './row.js';

export interface EvidenceRunRequest {
  env: Env;
  cwd: string;
  addressing: Addressing;
  argv: string[];
  shell: boolean;
  runCwd: string;
  timeoutMs: number;
  workspaceFlag?: string;
  brief?: { name: string; ac: string };
  sinks: Sinks;
  notice: (line: string) => void;
  /** Aborted when the caller gives up on the run (an MCP client's cancel): the child's process group is killed. */
  signal?: AbortSignal;
}

export async function evidenceRun(req: EvidenceRunRequest): Promise<Rendered> {
  const contract = await resolveContract(req.env, req.cwd, req.addressing, {
    workspaceFlag: req.workspaceFlag,
    notice: req.notice,
  });
  const prepared = await prepareRun(req.env, req.cwd, contract.tipId, req.workspaceFlag, req.brief);
  const { row } = await executeAndRecord({
    env: req.env,
    cwd: req.cwd,
    contractId: contract.tipId,
    prepared,
    argv: req.argv,
    shell: req.shell,
    runCwd: req.runCwd,
    timeoutMs: req.timeoutMs,
    sinks: req.sinks,
    notice: req.notice,
    signal: req.signal,
  });
  const append = contract.closed
    ? ({ kind: 'skipped', contractId: contract.tipId } as const)
    : await appendToDraft({
        env: req.env,
        cwd: req.cwd,
        contractId: contract.tipId,
        notice: req.notice,
        apply: (base, draftId) => {
          const withCommand = addToList(base, ['evidence_report', 'commands_run'], row.command, draftId);
          return addToList(withCommand, ['evidence_report', 'key_outputs'], receiptSummary(row), draftId);
        },
      });
  if (append.kind === 'failed') return appendFailedResult(row, append);
  if (append.kind === 'skipped') req.notice(notAppendedNotice(row.receipt_id, append.contractId));
  return {
    exit: childStatus(row),
    json: { status: 'ok', receipt: receiptJson(row), ...resolvedJson(contract.resolved) },
    errText: recordedLine(row),
  };
}
