/**
 * Registry entries for the validator's codes. Keyed by `ErrorCode`, so adding a code to
 * VALIDATOR_CODES without documenting it here is a type error, and vice versa.
 */
import { VALIDATOR_CODES, type ErrorCode } from '../validator/types.js';
import type { CodeEntry } from './types.js';

const FORM = 'validator (every set/add/fill, validate, finalize, gate)';

const ENTRIES: Record<ErrorCode, Omit<CodeEntry, 'code' | 'exit'>> = {
  MISSING_FIELD: {
    where: FORM,
    when: 'A required block or field is absent, null, blank or empty: the envelope itself is not a JSON object, agent_status is missing, one of its four fields is missing or blank, or (under a valid state) evidence_report or one of its seven lists is missing.',
    path: 'agent_contract_handoff, agent_status, agent_status.<field>, evidence_report, evidence_report.<list>',
    repair:
      'Write the named field. Lists and pending_steps accept []; agent_id is copied verbatim from init or the dispatch.',
  },
  PLAN_STATUS: {
    where: FORM,
    when: 'agent_status.agent_state is a non-blank string that does not normalize (trim, upper-case, drop trailing . , ;) to one of the six agent states.',
    path: 'agent_status.agent_state',
    repair:
      'Set one of IN_PROGRESS, APPROVAL_REQUEST, COMPLETE, BLOCKED, NEEDS_INPUT, NEEDS_VERIFICATION. DISPATCHED is a row state an agent never writes.',
  },
  AGENT_ID_FORMAT: {
    where: FORM,
    when: 'agent_status.agent_id is not blank but is not a string matching ^a[0-9a-f]{16,}$ exactly (non-strings stack after their FIELD_TYPE).',
    path: 'agent_status.agent_id',
    repair:
      'Copy the id printed by handoff contract init or the dispatch "your contract" block, verbatim and without padding.',
  },
  FIELD_TYPE: {
    where: FORM,
    when: 'A declared field is present, not null, and of the wrong JSON type (an object, array or string was expected).',
    path: "the field's path",
    repair:
      'Replace the value with one of the declared type using handoff contract set; null is accepted where a field is optional.',
  },
  MISPLACED_KEY: {
    where: FORM,
    when: 'A key at the root, in agent_status or in evidence_report is not accepted there but belongs at another level.',
    path: '<level prefix><key>',
    repair:
      'Write the value at its home path instead. The rejected write persisted nothing; a copy inherited from an older draft is stripped by the next write.',
  },
  UNKNOWN_FIELD: {
    where: FORM,
    when: 'A key at the root, in agent_status or in evidence_report is not accepted there and has no home anywhere.',
    path: '<level prefix><key>',
    repair:
      'Use the suggested key, or one of the keys listed for that level; free text belongs in open blocks or report_prose.',
  },
  VERIFICATION_SHAPE: {
    where: FORM,
    when: 'Under a valid state, verification.type makes a claim but the companion it owes is missing: command for command/code, a truthy requires_human for semantic, reviewed for self_review, one of the three for any other word.',
    path: 'evidence_report.verification.command, .requires_human, .reviewed, or evidence_report.verification',
    repair:
      'Write the companion in the same fill as verification.type (or before it), or use type "none" when nothing was checked.',
  },
  VERIFICATION_RESULT: {
    where: FORM,
    when: 'The state is COMPLETE and evidence_report.verification is not an object, or its result is not the token "pass".',
    path: 'evidence_report.verification, evidence_report.verification.result',
    repair:
      'Fill the verification block with result "pass" before setting COMPLETE; a check that did not pass closes another state (NEEDS_VERIFICATION, BLOCKED).',
  },
  COMPLETE_SHAPE: {
    where: FORM,
    when: 'The state is COMPLETE and next_action is not the token "done", or pending_steps is a non-empty list.',
    path: 'agent_status.next_action, agent_status.pending_steps',
    repair: "Set next_action to done and pending_steps to '[]' first, then set the state to COMPLETE.",
  },
  RECEIPT_REF_SHAPE: {
    where: FORM,
    when: 'Under a valid state, verification.receipt is not a receipt id, verification.receipts is not a non-empty list, or one of its elements is not a receipt id (^R-[0-9a-f]{16}$).',
    path: 'evidence_report.verification.receipt, evidence_report.verification.receipts, evidence_report.verification.receipts[i]',
    repair:
      'Copy receipt ids verbatim from handoff evidence run or handoff contract verify, or set the reference to null to cite none.',
  },
  APPROVAL_REQUEST_SHAPE: {
    where: FORM,
    when: 'The state is APPROVAL_REQUEST and approval_request is not a non-empty object, or its exact_content is not a non-empty string.',
    path: 'approval_request, approval_request.exact_content',
    repair:
      'Write approval_request.exact_content (the exact command or content the user approves) before setting APPROVAL_REQUEST.',
  },
  CONSOLIDATION_REPORT_SHAPE: {
    where: FORM,
    when: 'The turn is marked consolidation work, the state is valid and not IN_PROGRESS, and consolidation_report or one of its sub-fields is missing or malformed.',
    path: 'consolidation_report, consolidation_report.<sub-field>',
    repair:
      'Write the whole block in one fill --json (ownership_assessment, the four lists, next_best_agent) before the closing state.',
  },
  FAILURE_REPORT_SHAPE: {
    where: FORM,
    when: 'failure_report is present and not null but is not an object, or lacks attempted, symptom or a non-empty string in evidence, or has an unknown severity.',
    path: 'failure_report, failure_report.attempted, .symptom, .evidence, .severity',
    repair: 'Write the block whole in one fill --json, or leave it out (null is always valid).',
  },
  WORK_PHASE_SHAPE: {
    where: FORM,
    when: 'work_phase is present and not null and is not one of framing, investigating, planning, executing, verifying.',
    path: 'work_phase',
    repair: 'Set one of the five phases, or null.',
  },
  FILE_REFERENCE_SHAPE: {
    where: FORM,
    when: 'An object element of files_checked or FILES_CHECKED is not exactly {path, commit} with a non-empty path and a 7-64 hex commit.',
    path: 'evidence_report.files_checked[i].path, .commit, .<extra key> (or FILES_CHECKED[i]...)',
    repair: 'Write {"path","commit"} with a real commit hash, or list the file as a plain string.',
  },
  APPROVAL_ID_NOT_PENDING: {
    where: 'validator cross-check (every write, validate, finalize, gate; needs the store)',
    when: 'The form layer passed and approval_request.approval_id is not blank, but it names no approval in the store; or the envelope is in state APPROVAL_REQUEST and the approval is not pending; or, in any other state, it is rejected, revoked or expired.',
    path: 'approval_request.approval_id',
    repair:
      'A turn closing APPROVAL_REQUEST cites a still-pending approval (handoff approval request / handoff approval list); the executing turn cites the approved one. Otherwise remove approval_id.',
  },
  APPROVAL_FOREIGN: {
    where: 'validator cross-check (every write, validate of a draft, finalize, gate; needs the store)',
    when: "approval_request.approval_id resolves to an approval that is not the citing contract's: its contract_id is set and is not a contract of the citing continuation chain; or, for an approved or used approval without a contract_id, its agent_id is not the citing agent (or it names neither). Checked after the id resolves and before the content and status.",
    path: 'approval_request.approval_id',
    repair:
      'Request an approval for your own contract (`handoff approval request --draft-id <contract_id>`) and cite that id.',
  },
  APPROVAL_CONTENT_MISMATCH: {
    where: 'validator cross-check (every write, validate, finalize, gate; needs the store)',
    when: "approval_request.exact_content is a string whose sha256 (UTF-8) differs from the cited approval's fingerprint, or, for an approved or used approval, is missing or not a string: the content is not what was approved. Checked after APPROVAL_FOREIGN and before the status.",
    path: 'approval_request.exact_content',
    repair:
      'Write the exact content with the fill input printed by `handoff approval request` or `handoff approval show ID`, or request a new approval for the new content.',
  },
  APPROVAL_ALREADY_USED: {
    where: 'validator cross-check (every write, validate, finalize, gate; needs the store)',
    when: 'The cited approval is used: the finalize of another handoff (its executing turn) already used it. An approval authorizes one executing turn; the handoff that used it may repeat its own finalize. Checked after APPROVAL_CONTENT_MISMATCH and before the status.',
    path: 'approval_request.approval_id',
    repair: 'Request a new approval (handoff approval request) for another run, and cite its id once it is approved.',
  },
  APPROVAL_NOT_APPROVED: {
    where: 'validator cross-check at finalize and the gate (block)',
    when: 'The envelope closes in a state other than APPROVAL_REQUEST (the executing turn) and cites an approval that is still pending. Writes accept a pending approval; finalize and the gate accept only an approved one (finalize then marks it used) or one this very handoff used.',
    path: 'approval_request.approval_id',
    repair:
      'Close APPROVAL_REQUEST and wait for `handoff approval decide --decision approved`, then cite it in the executing turn; or remove approval_id.',
  },
};

/** Every validator code is a validation rejection: exit 1. */
export const validatorCodes: readonly (CodeEntry & { readonly code: ErrorCode; readonly exit: 1 })[] =
  VALIDATOR_CODES.map((code) => ({
    code,
    exit: 1 as const,
    ...ENTRIES[code],
  }));
