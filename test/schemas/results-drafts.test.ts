/** Real --json outputs of the draft verbs (init, set, add, fill, view, validate) against their schemas. */
import { describe, it } from 'vitest';
import { rows, runCase } from '../helpers/schemas/case.js';
import { DRAFT_CASES } from '../helpers/schemas/cases/drafts.js';

describe('draft verbs: every --json shape matches its schema', () => {
  it.each(rows(DRAFT_CASES))('%s', (_title, c) => runCase(c));
});
