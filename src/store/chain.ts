/** Continuation chains: their limit and their errors (the walks are shared statements: queries/handoffs.ts). */
import { HandoffError } from '../errors.js';

/** A chain holds at most 64 rows; a walk that would reach a 65th row stops with CHAIN_TOO_LONG. */
export const MAX_CHAIN_ROWS = 64;

export const chainTooLong = (contractId: string): HandoffError =>
  new HandoffError(
    'CHAIN_TOO_LONG',
    `the continuation chain of ${contractId} would exceed ${MAX_CHAIN_ROWS} rows; no further link is followed or opened`,
    { contract_id: contractId },
    'Start a new contract with `handoff contract init` or a new dispatch.',
  );

export const chainBroken = (contractId: string, why: string): HandoffError =>
  new HandoffError('CHAIN_BROKEN', `the continuation chain of ${contractId} is broken: ${why}`, {
    contract_id: contractId,
  });
