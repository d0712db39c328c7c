-- 0012_verification_policy: a dispatched contract's verification policy and what finalize saw of the receipts a close
-- cited. `verification` is 'receipt', 'typed' or 'any'; rows from before this migration are 'any' (the earlier rule).
-- `checks_json` is the dispatch's --check commands (a JSON array of strings, or NULL). Both are frozen bindings a
-- continuation inherits. `receipt_freshness_json` is written by finalize: one {"receipt_id","freshness"} per cited
-- receipt, freshness 'fresh', 'stale' or 'unknown' (no fingerprint); the stop gate reads it instead of fingerprinting
-- the tree again. Released: never edit this file.
ALTER TABLE handoffs ADD COLUMN verification TEXT NOT NULL DEFAULT 'any'
  CHECK (verification IN ('receipt','typed','any'));

ALTER TABLE handoffs ADD COLUMN checks_json TEXT
  CHECK (checks_json IS NULL OR (json_valid(checks_json) AND json_type(checks_json) = 'array'));

ALTER TABLE handoffs ADD COLUMN receipt_freshness_json TEXT
  CHECK (receipt_freshness_json IS NULL
         OR (json_valid(receipt_freshness_json) AND json_type(receipt_freshness_json) = 'array'));

DROP TRIGGER handoffs_frozen;

CREATE TRIGGER handoffs_frozen
BEFORE UPDATE ON handoffs
WHEN NEW.contract_id IS NOT OLD.contract_id
  OR NEW.agent_id IS NOT OLD.agent_id
  OR NEW.workspace IS NOT OLD.workspace
  OR NEW.kind IS NOT OLD.kind
  OR NEW.parent_handoff_id IS NOT OLD.parent_handoff_id
  OR NEW.continues_handoff_id IS NOT OLD.continues_handoff_id
  OR NEW.goal IS NOT OLD.goal
  OR NEW.consolidation IS NOT OLD.consolidation
  OR NEW.require_receipt IS NOT OLD.require_receipt
  OR NEW.verification IS NOT OLD.verification
  OR NEW.checks_json IS NOT OLD.checks_json
  OR NEW.can_write_json IS NOT OLD.can_write_json
  OR NEW.acceptance_json IS NOT OLD.acceptance_json
  OR NEW.created_at IS NOT OLD.created_at
  OR (OLD.finalized_at IS NOT NULL AND NEW.finalized_at IS NOT OLD.finalized_at)
BEGIN
  SELECT RAISE(ABORT, 'handoffs: a frozen column cannot change');
END;
