/**
 * `approval request`: a pending approval for exact content, and
 * the ready-to-run `handoff contract fill --json '…'` line that writes that content byte for byte together with the
 * approval id (`set` would parse content such as `42` or `true` as JSON, and a retyped copy would not match the
 * fingerprint).
 */
import { agentPrefix } from '../ids.js';
import { HandoffError } from '../errors.js';
import { maxEnvelopeBytes, type Env } from '../paths.js';
import { fillJsonLine } from './display.js';
import type { ApprovalRow } from '../store/approvals.js';
import { storeWriteRefused } from '../store/store-errors.js';
import { isConstraintViolation } from '../store/store.js';

export interface ApprovalRequest {
  env: Env;
  cwd: string;
  content: string;
  workspace: string;
  draftId?: string;
  agentId?: string;
}

export interface RequestedApproval {
  row: ApprovalRow;
  /** The fill line: exact_content JSON-escaped, the whole patch single-quoted for a POSIX shell. */
  fillCommand: string;
}

/** The fill line for an approval: `handoff contract fill [--draft-id ID | --agent-id ID] --json '<patch>'`. */
export function approvalFillCommand(
  approvalId: string,
  content: string,
  addressing: { draftId?: string; agentId?: string },
): string {
  return fillJsonLine(approvalId, content, addressing);
}

/**
 * The content must fit into an envelope beside the rest of it: at most half of HANDOFF_MAX_ENVELOPE_BYTES, measured
 * as the UTF-8 bytes of its JSON-escaped text (what the envelope stores). ENVELOPE_TOO_LARGE, exit 2, nothing written.
 */
export function checkContentSize(env: Env, content: string): void {
  const limit = Math.floor(maxEnvelopeBytes(env) / 2);
  const bytes = Buffer.byteLength(JSON.stringify(content), 'utf8') - 2;
  if (bytes <= limit) return;
  throw new HandoffError(
    'ENVELOPE_TOO_LARGE',
    `the approval content is ${bytes} bytes as JSON-escaped text, over the limit of ${limit} bytes (half of HANDOFF_MAX_ENVELOPE_BYTES, so the envelope that cites it still fits); nothing was written`,
    { bytes, limit },
    'Approve a short command or a digest instead (for example a script deposited with `handoff evidence add` and run by its path), or raise HANDOFF_MAX_ENVELOPE_BYTES.',
  );
}

/** Inserts the pending approval (creating the store if needed) and builds its fill line. */
export async function requestApproval(req: ApprovalRequest): Promise<RequestedApproval> {
  checkContentSize(req.env, req.content);
  const { openStore } = await import('../store/open-store.js');
  const store = (await openStore(req.env, req.cwd, 'writer', { create: true }))!;
  let row: ApprovalRow;
  try {
    row = await store.tx((t) =>
      t.insertApproval({
        workspace: req.workspace,
        agent_id: req.draftId !== undefined ? agentPrefix(req.draftId) : (req.agentId ?? null),
        contract_id: req.draftId ?? null,
        exact_content: req.content,
      }),
    );
  } catch (e) {
    // Content the store cannot hold (on PostgreSQL a NUL character): refused, nothing written.
    if (isConstraintViolation(e)) throw storeWriteRefused(store.location, 'the approval request', (e as Error).message);
    throw e;
  } finally {
    await store.close();
  }
  return { row, fillCommand: approvalFillCommand(row.id, req.content, { draftId: req.draftId, agentId: req.agentId }) };
}
