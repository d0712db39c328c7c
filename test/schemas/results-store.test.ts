/** Real --json outputs of the store verbs (finalize, list, chain, gc) against their schemas. */
import { describe, it } from 'vitest';
import { rows, runCase } from '../helpers/schemas/case.js';
import { STORE_CASES } from '../helpers/schemas/cases/store.js';
import { STORE_COPY_CASES } from '../helpers/schemas/cases/store-copy.js';
import { ATTEST_CASES } from '../helpers/schemas/cases/attest.js';

describe('store verbs: every --json shape matches its schema', () => {
  it.each(rows(STORE_CASES))('%s', (_title, c) => runCase(c));
});

describe('store copy: every --json shape matches its schema', () => {
  it.each(rows(STORE_COPY_CASES))('%s', (_title, c) => runCase(c));
});

describe('key and attest verbs: every --json shape matches its schema', () => {
  it.each(rows(ATTEST_CASES))('%s', (_title, c) => runCase(c));
});
