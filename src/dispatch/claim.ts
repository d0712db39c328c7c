/**
 * `contract claim` (dispatch-and-gate.md §2): ties a harness run id to a contract's live tip, set-once, allowed in
 * every state (COMPLETE included: harness_id is a link, not part of the write-once verdict). Never creates the DB.
 */
import { EXIT, HandoffError } from '../errors.js';
import type { Env } from '../paths.js';
import { closeDb, openWriter, writeTx } from '../store/db.js';
import { followChain, getHandoffByContractId, nowIso, type HandoffRow } from '../store/handoffs.js';
import { claimTip, harnessInUse } from './harness.js';

export interface ClaimResult {
  tip: HandoffRow;
  harnessId: string;
  changed: boolean;
}

const rowNotFound = (id: string): HandoffError =>
  new HandoffError(
    'ROW_NOT_FOUND',
    EXIT.NOT_FOUND,
    `no handoff row for ${id}; a contract gets a row when it is dispatched or finalized`,
    { contract_id: id },
  );

export function claim(env: Env, cwd: string, contractId: string, harnessId: string): ClaimResult {
  const db = openWriter(env, cwd, { create: false });
  if (db === null) throw rowNotFound(contractId);
  try {
    return writeTx(db, () => {
      const row = getHandoffByContractId(db, contractId);
      if (row === undefined) throw rowNotFound(contractId);
      const chain = followChain(db, row);
      const tip = chain[chain.length - 1];
      const outcome = claimTip(db, tip, harnessId, nowIso());
      switch (outcome.kind) {
        case 'in_use':
          throw harnessInUse(harnessId, outcome.holders);
        case 'conflict':
          throw new HandoffError(
            'HARNESS_ID_CONFLICT',
            EXIT.REJECTED,
            `contract ${tip.contract_id} already carries harness id ${JSON.stringify(outcome.current)}, not ${JSON.stringify(harnessId)} (set-once)`,
            { contract_id: tip.contract_id, harness_id: outcome.current },
          );
        case 'unchanged':
          return { tip, harnessId, changed: false };
        case 'claimed':
          return { tip: { ...tip, harness_id: harnessId }, harnessId, changed: true };
      }
    });
  } finally {
    closeDb(db);
  }
}
