/**
 * The repair text: one constant text per source, byte-stable so it can be snapshot-tested.
 * The two sources differ only in the opening sentence. Built lazily: most CLI calls validate a valid envelope and
 * the text is cheap, but import time should do nothing.
 */
import { AGENT_STATES, emptyEvidenceLists } from '../envelope/vocabulary.js';
import type { ValidationSource } from './types.js';

const OPENING: Record<ValidationSource, string> = {
  declaration:
    'If the envelope was rejected, the rejected write stored nothing: fix every error listed above and write again.',
  row: 'If the stored envelope is not valid, it must be repaired through the draft verbs below (a write to a closed contract opens a continuation; finalize that one).',
};

const template = (): string =>
  JSON.stringify({
    agent_status: {
      agent_state: 'IN_PROGRESS',
      agent_id: '<agent_id>',
      pending_steps: [],
      next_action: 'what you do next',
    },
    evidence_report: {
      ...emptyEvidenceLists(),
      verification: { type: 'command', command: 'npm test', result: 'pass' },
    },
    consolidation_report: null,
    approval_request: null,
  });

const body = (): string =>
  [
    'A valid envelope (compact template):',
    template(),
    '',
    'Always required: agent_status.agent_state, agent_status.agent_id, agent_status.pending_steps (the key; [] or null is fine), agent_status.next_action (non-blank), and evidence_report with all seven lists ([] or null is fine).',
    'agent_id must match ^a[0-9a-f]{16,}$: it comes from `handoff contract init` or from the "your contract" block of your dispatch; copy it verbatim.',
    `agent_state is one of ${AGENT_STATES.join(', ')}.`,
    '',
    'Close rules: COMPLETE needs next_action "done", pending_steps [] and evidence_report.verification.result "pass". APPROVAL_REQUEST needs approval_request.exact_content (the exact command or content the user approves). A turn marked consolidation needs the full consolidation_report (ownership_assessment, confirmed_findings, suspected_findings, conflicts, open_gaps, next_best_agent) before any state but IN_PROGRESS. A plan-task-bound producer closes NEEDS_VERIFICATION, never COMPLETE: a verifier judges it.',
    '',
    'verification.type is the claim and owes its companion: "command" or "code" -> a non-empty command; "semantic" -> a truthy requires_human; "self_review" -> a non-empty reviewed; any other word -> at least one of the three; "none" -> nothing. verification.method is free prose and claims nothing. Receipt ids (verification.receipt, verification.receipts) are copied from handoff evidence run or handoff contract verify; in a dispatched turn under the policy receipt (the default, named in your contract block) a COMPLETE command or code claim must cite one, or it is refused RECEIPT_REQUIRED.',
    '',
    'The build order: write the dependencies first or in the same fill (verification with its companion and result, approval_request.exact_content, consolidation_report, next_action, pending_steps), and set the closing agent_state last. A finalized COMPLETE is write-once.',
    '',
    'Write verbs:',
    '  handoff contract add FIELD VALUE      extends a list by one entry',
    "  handoff contract set FIELD VALUE      replaces a value; the way to correct or clear a list (set evidence_report.open_gaps '[]')",
    "  handoff contract fill --json '{...}'  merges a block and only fills empty lists; --json-file PATH for long prose",
  ].join('\n');

const cache = new Map<ValidationSource, string>();

export function repairText(source: ValidationSource): string {
  let text = cache.get(source);
  if (text === undefined) {
    text = `${OPENING[source]}\n\n${body()}`;
    cache.set(source, text);
  }
  return text;
}

/** Appended when the approval cross-check failed (last paragraph). */
export const APPROVAL_REPAIR =
  "approval_request.approval_id must name an approval of this contract's chain (requested with `handoff approval request --draft-id <contract_id>`), and approval_request.exact_content must be exactly its content: write both with the fill input printed by `handoff approval request` or `handoff approval show ID`. A turn closing APPROVAL_REQUEST cites a pending approval; the executing turn (any other state) cites the approved one, once: finalize marks it used. Find ids with `handoff approval list`, or remove approval_id.";
