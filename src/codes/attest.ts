import type { CodeEntry } from './types.js';

/** Keys, signed statements, `attest export` / `attest verify` and the approver policy (docs/attest.md). */
export const attestCodes = [
  {
    code: 'KEY_UNSAFE',
    exit: 2,
    where: 'finalize, evidence run, contract verify, approval decide, attest export (any verb that signs)',
    when: 'The private key file (HANDOFF_SIGNING_KEY or --key) may be read or written by group or others (its mode is not 0600 or stricter). Nothing is signed or written.',
    repair: 'Run `chmod 600` on the key file, or generate a new key with `handoff key generate`.',
  },
  {
    code: 'KEY_REQUIRED',
    exit: 2,
    where: 'attest export',
    when: 'No signing key is configured: HANDOFF_SIGNING_KEY is unset or blank. An export signs its head statement and whatever was never signed.',
    repair: 'Set HANDOFF_SIGNING_KEY to a private key file (`handoff key generate` writes one).',
  },
  {
    code: 'KEY_INVALID',
    exit: 2,
    where: 'every verb that reads a key file (HANDOFF_SIGNING_KEY, HANDOFF_APPROVER_KEYS, --key)',
    when: 'The key file is not a PEM key handoff signs or verifies with (ECDSA P-256 or Ed25519), or is larger than 64 KiB.',
    repair: 'Use a key written by `handoff key generate`, or a PEM ECDSA P-256 / Ed25519 key.',
  },
  {
    code: 'KEY_EXISTS',
    exit: 1,
    where: 'key generate',
    when: 'A key file of the name key generate writes already exists in the folder; nothing is overwritten.',
    repair: 'Pass --out with another folder, or move the old key aside.',
  },
  {
    code: 'ATTEST_FORMAT',
    exit: 1,
    where: 'attest verify',
    when: 'A line is not a Sigstore bundle as export writes it: not JSON, not UTF-8, not a v0.3 DSSE bundle of one in-toto statement, or not in the exact form export writes (a byte changed outside the signed payload). The message names the line.',
    repair: 'The file was altered after export: export it again from the store.',
  },
  {
    code: 'ATTEST_SIGNATURE',
    exit: 1,
    where: 'attest verify',
    when: "A line's signature does not verify with any key given (--key, and HANDOFF_APPROVER_KEYS for approval lines), or names a key none of them is. The message names the line.",
    repair:
      'Pass the public key of the store that signed (and of each approver) with --key; if it was given, the line was altered.',
  },
  {
    code: 'ATTEST_DIGEST',
    exit: 1,
    where: 'attest verify',
    when: "A subject digest does not match what the signed statement holds (the envelope's RFC 8785 digest, a receipt's digests, an approval's content), or a blob's bytes under --blobs do not match its digest.",
    repair: 'The statement or the blob was altered; export again from the store and compare the blobs.',
  },
  {
    code: 'ATTEST_CHAIN',
    exit: 1,
    where: 'attest verify',
    when: 'The lines do not form the exported chain: no single genesis, a step with no or two successors (a dropped, duplicated or forked handoff line), lines out of order, or a head statement that is missing (a truncated file) or whose tip, counts or line digests differ.',
    repair: 'The file was cut, reordered or spliced: export it again from the store.',
  },
  {
    code: 'ATTEST_BLOB_MISSING',
    exit: 1,
    where: 'attest verify --blobs DIR',
    when: 'An evidence blob a handoff cites is not in DIR (looked up by its sha256, then by its file name).',
    repair: 'Copy the blob into DIR (named by its sha256), or verify without --blobs.',
  },
  {
    code: 'APPROVAL_UNSIGNED',
    exit: 1,
    where: 'approval cross-check with HANDOFF_APPROVER_KEYS set (gate: a block; finalize, writes), attest verify',
    when: 'The cited approval is approved or used, but no key of HANDOFF_APPROVER_KEYS signed its decision (for instance a row written into the database by hand).',
    path: 'approval_request.approval_id',
    repair: 'Have the approver decide with `handoff approval decide … --key <their private key>`.',
  },
  {
    code: 'APPROVAL_SIGNATURE_INVALID',
    exit: 1,
    where: 'approval cross-check with HANDOFF_APPROVER_KEYS set (gate: a block; finalize, writes), attest verify',
    when: "A trusted approver's signature on the approval does not verify, or the latest signed decision does not match the row (another fingerprint, or a decision that is not in force: rejected, revoked).",
    path: 'approval_request.approval_id',
    repair: 'Request and decide a new approval for the content; the stored row was altered after it was signed.',
  },
] as const satisfies readonly CodeEntry[];
