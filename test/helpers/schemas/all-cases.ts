/** Every result case of the suite, for the meta-tests. */
import type { ResultCase } from './case.js';
import { DISPATCH_CASES } from './cases/dispatch.js';
import { DRAFT_CASES } from './cases/drafts.js';
import { EVIDENCE_CASES } from './cases/evidence.js';
import { RECEIPT_CASES } from './cases/receipts.js';
import { STORE_CASES } from './cases/store.js';
import { STORE_COPY_CASES } from './cases/store-copy.js';
import { HOOKS_CASES } from './cases/hooks.js';
import { ATTEST_CASES } from './cases/attest.js';

export const ALL_CASES: readonly ResultCase[] = [...DRAFT_CASES, ...STORE_CASES, ...DISPATCH_CASES, ...RECEIPT_CASES, ...EVIDENCE_CASES, ...STORE_COPY_CASES, ...HOOKS_CASES, ...ATTEST_CASES];
