import type { CodeEntry } from './types.js';

/**
 * Codes of the test-change check: finalize step 9c, over the base a dispatch took. Each
 * is a finalize refusal (exit 1, nothing written); the stop gate reads what finalize stored and never excuses it.
 */
export const testChangeCodes = [
  {
    code: 'TEST_CHANGES_SHAPE',
    exit: 1,
    where: 'contract finalize (step 9c, exit 1)',
    when: 'evidence_report.verification.test_changes is present but is not a list of objects each holding exactly a non-blank path and a non-blank reason (at most 4096 characters, at most 10,000 entries).',
    path: 'evidence_report.verification.test_changes, evidence_report.verification.test_changes[i]',
    repair:
      'Write test_changes as [{"path": "<the path as detected>", "reason": "<why the test had to change>"}], one entry per modified or deleted test file.',
  },
  {
    code: 'TESTS_CHANGED_UNDECLARED',
    exit: 1,
    where: 'contract finalize (step 9c, exit 1)',
    when: "A COMPLETE close of a dispatched contract whose test files (the dispatch's --tests globs, HANDOFF_TEST_GLOBS or the default list, package.json's scripts.test, pyproject.toml's pytest table) were modified or deleted since dispatch, without an entry for each in evidence_report.verification.test_changes. Added tests need none.",
    path: 'evidence_report.verification.test_changes',
    repair:
      'Restore the test, or declare it: handoff contract add evidence_report.verification.test_changes \'{"path":"<path>","reason":"<why>"}\' for each path the error names.',
  },
  {
    code: 'TESTS_PROTECTED',
    exit: 1,
    where: 'contract finalize (step 9c, exit 1)',
    when: 'A COMPLETE close of a contract dispatched with --protect-tests whose test files were modified or deleted since dispatch; a declaration does not lift it.',
    path: 'evidence_report.verification.test_changes',
    repair:
      'Restore the tests the error names, or close NEEDS_VERIFICATION or BLOCKED and say why they must change, for the dispatcher to decide.',
  },
] as const satisfies readonly CodeEntry[];
