/**
 * The printed contract block: `# Your Contract` (data) and `# Close rules` (only the
 * rules that apply, in table order). Pure: the same input always renders the same bytes, so the human stdout and
 * the `contract_block` of `--json` are one string.
 */

import { escapeControls } from '../render/escape.js';
import { blockLine } from '../approvals/patterns.js';
import type { VerificationPolicy } from '../store/handoff-row.js';
import { verificationRules } from './verification.js';

/** The closing states in their documented order. */
export const CLOSE_ORDER = 'COMPLETE, NEEDS_VERIFICATION, BLOCKED, NEEDS_INPUT, APPROVAL_REQUEST';

export interface AcceptanceItem {
  ac_id: string | null;
  description: string;
}

export interface BlockInfo {
  contractId: string;
  agentId: string;
  handoffId: number;
  workspace: string;
  kind: string;
  planTaskId?: string;
  parent?: { id: number; contractId: string; state: string };
  brief?: { id: number; name: string };
  consolidation: boolean;
  requireReceipt: boolean;
  verification: VerificationPolicy;
  checks: string[];
  goal: string;
  acceptance: AcceptanceItem[];
  canWrite: string[];
  /** Approval patterns; absent or empty = none. */
  requireApproval?: string[];
}

export interface CloseRule {
  id: string;
  text: string;
}

/** Continuation lines of a multi-line value, indented under their item. */
const indentRest = (text: string, pad: string): string => text.split('\n').join(`\n${pad}`);

/** The applicable close rules, in their fixed order. */
export function closeRules(b: BlockInfo): CloseRule[] {
  const id = b.contractId;
  const bound = b.planTaskId !== undefined;
  const rules: (CloseRule | false)[] = [
    {
      id: 'draft_id',
      text: `pass --draft-id ${id} on every handoff contract command; never run handoff contract init for this turn`,
    },
    {
      id: 'finalize',
      text: `build the envelope with handoff contract set/add/fill, set the closing agent_status.agent_state last, then close with handoff contract finalize --draft-id ${id}`,
    },
    { id: 'closing_states', text: `closing states: ${CLOSE_ORDER}; finalize refuses IN_PROGRESS` },
    !bound && {
      id: 'complete',
      text: 'COMPLETE needs agent_status.pending_steps [], agent_status.next_action "done", and evidence_report.verification.result "pass" with the companion its type owes (command/code: command; semantic: requires_human; self_review: reviewed)',
    },
    bound && {
      id: 'blind_verification',
      text: `bound to plan task ${b.planTaskId}: you cannot close COMPLETE; close NEEDS_VERIFICATION and propose evidence_report.verification.result; a verifier judges it`,
    },
    b.kind === 'verifier' &&
      b.parent !== undefined && {
        id: 'verifier',
        text: `you verify handoff ${b.parent.id} (contract ${b.parent.contractId}): re-run or judge each acceptance criterion; close COMPLETE only if every one passed, else BLOCKED or NEEDS_INPUT with a failure_report`,
      },
    {
      id: 'approval_request',
      text: `APPROVAL_REQUEST needs approval_request.exact_content; get an approval id with handoff approval request --draft-id ${id}`,
    },
    b.consolidation && {
      id: 'consolidation',
      text: 'every close needs consolidation_report with ownership_assessment (owned_here / cross_surface_dependency / not_my_surface), the arrays confirmed_findings, suspected_findings, conflicts, open_gaps, and next_best_agent (string or null)',
    },
    b.brief !== undefined && {
      id: 'evidence',
      text: `deposit evidence with handoff evidence add --brief ${b.brief.name} --ac <ac_id> --type <type>, or list entries in update_contracts as {"contract":"evidence","payload":{"brief_id":${b.brief.id},"ac_id":"<ac_id>","type":"<type>","text" or "artifact_path":"..."}}`,
    },
    b.canWrite.length > 0 && {
      id: 'can_write',
      text: `update_contracts entries other than evidence may only name: ${b.canWrite.join(', ')}`,
    },
    ...verificationRules(id, b.verification, b.checks),
    (b.requireApproval?.length ?? 0) > 0 && {
      id: 'require_approval',
      text: `a tool call matching require_approval is denied until an approval of exactly that call is approved: run handoff approval request --draft-id ${id} --content <the exact call> (the denial prints it), then close APPROVAL_REQUEST or wait with handoff approval wait <approval id>; each approval lets the call run once`,
    },
    { id: 'stop_gate', text: 'stopping without a finalized contract is blocked' },
  ];
  return rules.filter((r): r is CloseRule => r !== false);
}

/** The whole block, newline-terminated. */
export function renderContractBlock(b: BlockInfo, rules: CloseRule[] = closeRules(b)): string {
  const lines = [
    '# Your Contract',
    `contract_id: ${b.contractId}`,
    `agent_id: ${b.agentId}`,
    `handoff_id: ${b.handoffId}`,
  ];
  lines.push(`workspace: ${b.workspace}`, `kind: ${b.kind}`);
  if (b.planTaskId !== undefined) lines.push(`plan_task_id: ${b.planTaskId}`);
  if (b.parent !== undefined)
    lines.push(`parent_handoff_id: ${b.parent.id} (contract ${b.parent.contractId}, state ${b.parent.state})`);
  if (b.brief !== undefined) lines.push(`brief: ${b.brief.name} (brief_id ${b.brief.id})`);
  if (b.consolidation) lines.push('consolidation: yes');
  lines.push('goal:', ...b.goal.split('\n').map((l) => `  ${l}`));
  if (b.acceptance.length > 0) {
    lines.push('acceptance:');
    for (const a of b.acceptance) {
      lines.push(
        a.ac_id === null
          ? `  - ${indentRest(a.description, '    ')}`
          : `  - ${a.ac_id}: ${indentRest(a.description, '    ')}`,
      );
    }
  }
  if (b.canWrite.length > 0) lines.push(`can_write: ${b.canWrite.join(', ')}`);
  // Read back by the pre-tool gate from the transcript's first user message.
  if ((b.requireApproval?.length ?? 0) > 0) lines.push(blockLine(b.requireApproval!));
  lines.push(`verification: ${b.verification}`);
  if (b.checks.length > 0) lines.push('checks:', ...b.checks.map((c) => `  - ${c}`));
  lines.push('', '# Close rules', ...rules.map((r, i) => `${i + 1}. ${r.text}`));
  // The goal and the criteria are the orchestrator's text: tabs and line breaks stay, any other control character
  // (an ESC that would repaint the agent's terminal or hide a line) is shown escaped, here and in contract_block.
  return escapeControls(`${lines.join('\n')}\n`.replace(/\r\n/g, '\n'));
}
