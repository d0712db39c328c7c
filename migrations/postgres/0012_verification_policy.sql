-- 0012_verification_policy (PostgreSQL): handoffs.verification, handoffs.checks_json and
-- handoffs.receipt_freshness_json, and handoffs_frozen re-created with the first two, as
-- migrations/0012_verification_policy.sql. Rows from before this migration are 'any'. Released: never edit this file.
ALTER TABLE handoffs ADD COLUMN verification text COLLATE "C" NOT NULL DEFAULT 'any'
  CHECK (verification IN ('receipt','typed','any'));

ALTER TABLE handoffs ADD COLUMN checks_json text COLLATE "C"
  CHECK (checks_json IS NULL OR (handoff_json_valid(checks_json) AND left(checks_json, 1) = '['));

ALTER TABLE handoffs ADD COLUMN receipt_freshness_json text COLLATE "C"
  CHECK (receipt_freshness_json IS NULL
         OR (handoff_json_valid(receipt_freshness_json) AND left(receipt_freshness_json, 1) = '['));

DROP TRIGGER handoffs_frozen ON handoffs;

CREATE TRIGGER handoffs_frozen
BEFORE UPDATE ON handoffs
FOR EACH ROW WHEN (NEW.contract_id IS DISTINCT FROM OLD.contract_id
  OR NEW.agent_id IS DISTINCT FROM OLD.agent_id
  OR NEW.workspace IS DISTINCT FROM OLD.workspace
  OR NEW.kind IS DISTINCT FROM OLD.kind
  OR NEW.parent_handoff_id IS DISTINCT FROM OLD.parent_handoff_id
  OR NEW.continues_handoff_id IS DISTINCT FROM OLD.continues_handoff_id
  OR NEW.goal IS DISTINCT FROM OLD.goal
  OR NEW.consolidation IS DISTINCT FROM OLD.consolidation
  OR NEW.require_receipt IS DISTINCT FROM OLD.require_receipt
  OR NEW.verification IS DISTINCT FROM OLD.verification
  OR NEW.checks_json IS DISTINCT FROM OLD.checks_json
  OR NEW.can_write_json IS DISTINCT FROM OLD.can_write_json
  OR NEW.acceptance_json IS DISTINCT FROM OLD.acceptance_json
  OR NEW.created_at IS DISTINCT FROM OLD.created_at
  OR (OLD.finalized_at IS NOT NULL AND NEW.finalized_at IS DISTINCT FROM OLD.finalized_at))
EXECUTE FUNCTION handoff_refuse('handoffs: a frozen column cannot change');
