/** Real --json outputs of the brief, evidence and approval verbs against their schemas. */
import { describe, it } from 'vitest';
import { rows, runCase } from '../helpers/schemas/case.js';
import { EVIDENCE_CASES } from '../helpers/schemas/cases/evidence.js';

describe('brief, evidence and approval verbs: every --json shape matches its schema', () => {
  it.each(rows(EVIDENCE_CASES))('%s', (_title, c) => runCase(c));
});
