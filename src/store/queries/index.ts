/**
 * Every store operation, by concern (one module each): the reads (on a store and on a transaction handle) and the
 * writes (on a transaction handle), which withOps makes the methods of both stores.
 */
import { approvalReads, approvalWrites } from './approvals.js';
import { briefReads, briefWrites } from './briefs.js';
import { evidenceReads, evidenceWrites } from './evidence.js';
import { handoffReads, handoffWrites } from './handoffs.js';
import { recordReads, recordWrites } from './records.js';

export const storeReads = { ...handoffReads, ...approvalReads, ...briefReads, ...evidenceReads, ...recordReads };
export const storeWrites = { ...handoffWrites, ...approvalWrites, ...briefWrites, ...evidenceWrites, ...recordWrites };
