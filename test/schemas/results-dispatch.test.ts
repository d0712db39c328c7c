/** Real --json outputs of dispatch, claim and the stop gate against their schemas. */
import { describe, it } from 'vitest';
import { rows, runCase } from '../helpers/schemas/case.js';
import { DISPATCH_CASES } from '../helpers/schemas/cases/dispatch.js';

describe('dispatch, claim and gate: every --json shape matches its schema', () => {
  it.each(rows(DISPATCH_CASES))('%s', (_title, c) => runCase(c));
});
