import type { CodeEntry } from './types.js';

/** Codes of the evidence side (briefs, evidence deposits, reading, the update_contracts evidence clause). */
export const evidenceCodes = [
  {
    code: 'UNSAFE_SLUG',
    exit: 2,
    where:
      'brief add/list/show, evidence add/list/run, and every verb that resolves a workspace (contract init, dispatch, finalize, verify, approval request; the gate exits 1)',
    when: 'A brief name or ac id, or an explicit workspace (--workspace, $HANDOFF_WORKSPACE), fails the safe-slug rule (1-64 of A-Z a-z 0-9 . _ -, first one alphanumeric, no ".."). Explicit values are never normalized; a workspace derived from a folder name is made into a slug instead.',
    repair:
      'Use a slug such as payments-hardening or AC-1; for the workspace pass --workspace <slug> or set $HANDOFF_WORKSPACE to one (or unset it to use the folder name).',
  },
  {
    code: 'DUPLICATE_AC',
    exit: 2,
    where: 'brief add',
    when: 'The same ac id (ignoring case) is given twice in one brief add.',
    repair: 'Give each acceptance criterion once, with ids that differ by more than case.',
  },
  {
    code: 'BRIEF_NOT_FOUND',
    exit: 3,
    where:
      'brief show, brief add --extend, evidence add, evidence list, evidence run --brief, contract dispatch --brief',
    when: 'No brief with that name exists in the workspace (or there is no store yet). The message and `workspaces` name the workspaces where a brief of that name does exist.',
    repair:
      'Pass --workspace with one of the workspaces named, create the brief with handoff brief add NAME, or check the name with handoff brief list.',
  },
  {
    code: 'EVIDENCE_NOT_FOUND',
    exit: 3,
    where: 'evidence show',
    when: 'No evidence row has that id (or there is no store yet).',
    repair: 'List the ids with handoff evidence list --brief NAME.',
  },
  {
    code: 'NO_STORE',
    exit: 3,
    where: 'evidence orphans',
    when: 'There is no DB file, so no blob can be proven referenced.',
    repair: 'Check $HANDOFF_HOME / $HANDOFF_DB; nothing is listed without a store.',
  },
  {
    code: 'BRIEF_EXISTS',
    exit: 1,
    where: 'brief add',
    when: 'A brief with that name (ignoring case) already exists in the workspace.',
    repair: 'Add acceptance criteria to it with brief add NAME --extend --ac ID=TEXT, or pick another name.',
  },
  {
    code: 'AC_EXISTS',
    exit: 1,
    where: 'brief add --extend',
    when: 'A given ac id (ignoring case) is already declared by the brief.',
    repair: 'Leave out the ids the brief already has (see handoff brief show NAME).',
  },
  {
    code: 'UNKNOWN_AC',
    exit: 1,
    where: 'evidence add',
    when: 'The brief declares acceptance criteria and the given ac id is not one of them (lookups are exact).',
    repair: 'Use one of the declared ids exactly as shown by handoff brief show NAME, or extend the brief.',
  },
  {
    code: 'EVIDENCE_PATH_ESCAPE',
    exit: 1,
    where: 'evidence add, evidence run; evidence show --verify; contract finalize and contract gate (a cited receipt)',
    when: 'A blob directory does not resolve to its canonical location below the evidence root (a symlinked segment); or a stored row (an evidence artifact, a receipt output) names a file outside the evidence root, as written or once resolved. Such a file is never read, whatever the row says.',
    path: 'finalize and gate: evidence_report.verification.receipt or .receipts[i]',
    repair:
      'Remove the symlink from the evidence tree; blobs are only written at their canonical path. A row naming a path outside the root was altered: record the evidence or the receipt again.',
  },
  {
    code: 'EVIDENCE_HASH_MISMATCH',
    exit: 1,
    where: 'evidence show --verify',
    when: 'The stored payload is missing or its sha256 differs from the recorded digest.',
    repair: 'The evidence was altered or removed after it was recorded; deposit it again with handoff evidence add.',
  },
  {
    code: 'EVIDENCE_PAYLOAD',
    exit: 1,
    where: 'contract finalize (update_contracts)',
    when: 'An update_contracts evidence payload breaks a field rule (keys, brief_id, ac_id, type, text/artifact_path, task_id, created_by_agent, size_bytes).',
    path: 'update_contracts[i].payload.<field>, or update_contracts[i].payload',
    repair:
      'Fix the payload: brief_id an integer, ac_id a safe slug, type one of text/file/command_output/url/screenshot, exactly one of text (at most 4096 bytes) or artifact_path.',
  },
  {
    code: 'EVIDENCE_ARTIFACT_PATH',
    exit: 1,
    where: 'contract finalize (update_contracts)',
    when: 'An artifact_path is not an absolute path to an existing regular file strictly below the evidence root after realpath.',
    path: 'update_contracts[i].payload.artifact_path',
    repair: 'Deposit the file with handoff evidence add and cite the path it prints.',
  },
  {
    code: 'EVIDENCE_BRIEF_NOT_FOUND',
    exit: 1,
    where: 'contract finalize (update_contracts)',
    when: 'brief_id names no brief, or a brief of another workspace than the row being finalized.',
    path: 'update_contracts[i].payload.brief_id',
    repair: 'Use the id shown by handoff brief list in the same workspace.',
  },
  {
    code: 'EVIDENCE_UNKNOWN_AC',
    exit: 1,
    where: 'contract finalize (update_contracts)',
    when: 'The brief declares acceptance criteria and ac_id is not one of them (exact match).',
    path: 'update_contracts[i].payload.ac_id',
    repair: 'Use one of the ids shown by handoff brief show NAME, exactly as declared.',
  },
  {
    code: 'EVIDENCE_WRITE_FAILED',
    exit: 4,
    where: 'evidence add, evidence run',
    when: 'The blob could not be written (disk full, permissions, I/O error); nothing was kept.',
    repair: 'Free space or fix the permissions of the evidence root, then deposit again.',
  },
] as const satisfies readonly CodeEntry[];
