/** Real --json outputs of the receipt verbs (evidence run, contract verify, evidence receipts, evidence show R-...). */
import { describe, it } from 'vitest';
import { rows, runCase } from '../helpers/schemas/case.js';
import { RECEIPT_CASES } from '../helpers/schemas/cases/receipts.js';

describe('receipt verbs: every --json shape matches its schema', () => {
  it.each(rows(RECEIPT_CASES))('%s', (_title, c) => runCase(c));
});
