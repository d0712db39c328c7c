/**
 * Which result schemas each verb's `--json` output can take. docs/schemas.md documents the same table (a test keeps
 * them equal), and every (verb, schema) pair here is produced by at least one real output in the case tables.
 * A new verb needs an entry here before the suite passes.
 */
export const VERB_SCHEMAS: Readonly<Record<string, readonly string[]>> = {
  'contract init': ['contract-init', 'error'],
  'contract set': ['draft-write', 'validation-rejection', 'ambiguous-draft', 'error'],
  'contract add': ['draft-write', 'validation-rejection', 'ambiguous-draft', 'error'],
  'contract fill': ['draft-write', 'validation-rejection', 'fill-list-collision', 'ambiguous-draft', 'error'],
  'contract patch': ['draft-write', 'validation-rejection', 'ambiguous-draft', 'error'],
  'contract view': ['contract-view', 'contract-view-field', 'ambiguous-draft', 'error'],
  'contract validate': ['contract-validate', 'validation-rejection', 'ambiguous-draft', 'error'],
  'contract finalize': ['contract-finalize', 'finalize-refusal', 'validation-rejection', 'ambiguous-draft', 'error'],
  'contract list': ['contract-list', 'error'],
  'contract chain': ['contract-chain', 'contract-chain-diff', 'error'],
  'contract gc': ['contract-gc', 'error'],
  'contract dispatch': ['contract-dispatch', 'error'],
  'contract claim': ['contract-claim', 'error'],
  'contract gate': ['contract-gate', 'error'],
  'contract verify': ['contract-verify', 'contract-verify-failed', 'receipt-append-failed', 'ambiguous-draft', 'error'],
  'approval request': ['approval-request', 'error'],
  'approval decide': ['approval-decide', 'error'],
  'approval list': ['approval-list', 'error'],
  'brief add': ['brief-add', 'error'],
  'brief list': ['brief-list', 'error'],
  'brief show': ['brief-show', 'error'],
  'evidence add': ['evidence-add', 'error'],
  'evidence list': ['evidence-list', 'error'],
  'evidence show': ['evidence-show', 'evidence-show-mismatch', 'receipt-show', 'receipt-show-tampered', 'error'],
  'evidence orphans': ['evidence-orphans', 'error'],
  'evidence run': ['evidence-run', 'receipt-append-failed', 'ambiguous-draft', 'error'],
  'evidence receipts': ['evidence-receipts', 'error'],
  'store copy': ['store-copy', 'error'],
  'key generate': ['key-generate', 'error'],
  'attest export': ['attest-export', 'error'],
  'attest verify': ['attest-verify', 'error'],
};
