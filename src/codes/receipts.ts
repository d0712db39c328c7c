import type { CodeEntry } from './types.js';

/**
 * Codes of the receipts. RECEIPT_REF_SHAPE is a validator code (registered with them). At the stop gate every
 * receipt check code blocks (exit 2) and is never excused; the `exit` here is the finalize / verb exit.
 */
export const receiptCodes = [
  {
    code: 'RECEIPT_NOT_FOUND',
    exit: 1,
    where: 'contract finalize (step 9b, exit 1); contract gate (block, exit 2); evidence show R-… (exit 3)',
    when: 'A cited receipt id (or the id given to evidence show) does not exist in the store, or there is no store.',
    path: 'evidence_report.verification.receipt, evidence_report.verification.receipts[i]',
    repair:
      'Cite an id printed by handoff evidence run or handoff contract verify, copied verbatim (R- and 16 lowercase hex).',
  },
  {
    code: 'RECEIPT_FOREIGN',
    exit: 1,
    where: 'contract finalize (exit 1); contract gate (block, exit 2)',
    when: "A cited receipt belongs to a contract outside this contract's continuation chain.",
    path: 'evidence_report.verification.receipt, evidence_report.verification.receipts[i]',
    repair: 'Record your own receipt with handoff evidence run --draft-id <your contract> -- CMD and cite that id.',
  },
  {
    code: 'RECEIPT_TAMPERED',
    exit: 1,
    where: 'contract finalize (exit 1); contract gate (block, exit 2); evidence show R-… --verify (exit 1)',
    when: "The receipt's row_sha256 or a stored output's sha256 no longer matches, or an output blob is gone.",
    path: 'evidence_report.verification.receipt, evidence_report.verification.receipts[i]',
    repair:
      'Receipts are immutable: record a new one with handoff evidence run and cite it; investigate who changed the store.',
  },
  {
    code: 'RECEIPT_FAILED',
    exit: 1,
    where: 'contract finalize (exit 1); contract gate (block, exit 2); contract verify (exit 1)',
    when: "verification.result is pass but a cited receipt's outcome is fail or unproven; for contract verify: the re-run did not pass (the receipt and the draft update were written).",
    path: 'evidence_report.verification.receipt, evidence_report.verification.receipts[i]',
    repair: 'Fix the code and record a passing receipt, or set verification.result to what the receipt shows.',
  },
  {
    code: 'RECEIPT_COMMAND_MISMATCH',
    exit: 1,
    where: 'contract finalize (exit 1); contract gate (block, exit 2)',
    when: 'verification.type is command or code and no cited receipt ran verification.command (both trimmed, then compared exactly).',
    path: 'the first cited reference',
    repair:
      'Cite the receipt of the command you claim, or set verification.command to the command string the receipt shows.',
  },
  {
    code: 'RECEIPT_STALE',
    exit: 1,
    where:
      'contract finalize; contract gate (block, exit 2: a COMPLETE row under the policy receipt whose recorded freshness is stale)',
    when: "The git work tree in the receipt's cwd changed (status, diff against HEAD or, before the first commit, against the empty tree, untracked files or HEAD itself) since the receipt was recorded, or the cwd is gone or no longer in a work tree. Under the verification policy receipt, --allow-stale does not excuse it on a COMPLETE close, and the gate reads the freshness finalize recorded.",
    path: 'evidence_report.verification.receipt, evidence_report.verification.receipts[i]',
    repair:
      'Re-run the check (handoff contract verify) and cite the new receipt; outside the policy receipt, finalize with --allow-stale when the change cannot affect it.',
  },
  {
    code: 'RECEIPT_REQUIRED',
    exit: 1,
    where: 'contract finalize (exit 1); contract gate (block, exit 2); a write that foresees it (notice)',
    when: 'The dispatch set the verification policy receipt (the default for every kind but investigation; --require-receipt means it) and a COMPLETE close does not rest on a receipt: its verification.type is not command or code, or it cites no receipt; or a COMPLETE or NEEDS_VERIFICATION close with a command/code verification cites none.',
    path: 'evidence_report.verification.type, evidence_report.verification.receipt',
    repair:
      'Run the check with handoff evidence run -- CMD (or handoff contract verify), set verification.type command with that command and cite the printed id in evidence_report.verification.receipt; or close NEEDS_VERIFICATION for a verifier.',
  },
  {
    code: 'VERIFICATION_TYPE_REQUIRED',
    exit: 1,
    where: 'contract finalize (exit 1); contract gate (block, exit 2); a write that foresees it (notice)',
    when: 'The dispatch set the verification policy typed (the default for the kind investigation) and a COMPLETE close has no verification.type, or the type none.',
    path: 'evidence_report.verification.type',
    repair:
      'Say what was checked: type command or code with command (best with a receipt from handoff evidence run), semantic with requires_human, or self_review with reviewed.',
  },
  {
    code: 'CHECK_NOT_RUN',
    exit: 1,
    where: 'contract finalize (exit 1)',
    when: "The dispatch named a command with --check and the contract's chain holds no passing, intact, fresh receipt of it (argv equality) when the turn closes COMPLETE.",
    path: 'evidence_report.verification',
    repair:
      'Run the named command with handoff evidence run --draft-id ID -- CMD after your last change, then finalize again.',
  },
  {
    code: 'VERIFY_NO_COMMAND',
    exit: 1,
    where: 'contract verify',
    when: "The draft's evidence_report.verification is missing or has no non-empty string command; nothing was run.",
    repair:
      'Set the command first: handoff contract set evidence_report.verification.command "npm test" (with type command).',
  },
  {
    code: 'VERIFY_CONTRACT_CLOSED',
    exit: 1,
    where: 'contract verify',
    when: "The contract's live tip is closed; verify never opens a continuation, so nothing was run.",
    repair:
      'A verifier verifies through its own contract: dispatch one with --parent-handoff-id, or write to the contract to open a continuation first.',
  },
  {
    code: 'RECEIPT_CAPTURE_FAILED',
    exit: 4,
    where: 'evidence run, contract verify',
    when: "The command's output could not be captured: spilling it under <root>/tmp/ failed (no space, unwritable, a file-size limit). The command's process group was stopped and reaped at once, and no receipt was recorded.",
    repair: 'Free space under the data root or make <root>/tmp writable, then run the command again.',
  },
  {
    code: 'DRAFT_APPEND_FAILED',
    exit: 4,
    where: 'evidence run, contract verify',
    when: 'The receipt was recorded but the draft append failed (lock not obtained, draft unreadable, the full verdict refused the write, the save failed); `cause` names the underlying code.',
    repair:
      'The receipt stays valid: add its command and id to the draft yourself (handoff contract add / set), or fix the cause and run again.',
  },
  {
    code: 'CWD_NOT_FOUND',
    exit: 2,
    where: 'evidence run; contract dispatch (--workdir)',
    when: '--cwd (evidence run) or --workdir (contract dispatch) names no existing directory (missing, not a directory, or an empty string); checked before anything runs, so nothing is run or written.',
    repair: 'Pass an existing directory to --cwd, or leave the flag out to run the command in the current directory.',
  },
] as const satisfies readonly CodeEntry[];
