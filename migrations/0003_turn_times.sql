-- 0003_turn_times: handoffs.finalized_at (amendments-2.md §H2) and handoffs.gate_seen_at (§E5).
-- finalized_at is set once, by the transaction that first stores a closing state; gate_seen_at is set when the
-- stop gate judges a stop of the contract. Both are the store's own clock. Released: never edit this file.

ALTER TABLE handoffs ADD COLUMN finalized_at TEXT;

ALTER TABLE handoffs ADD COLUMN gate_seen_at TEXT;

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
  OR NEW.can_write_json IS NOT OLD.can_write_json
  OR NEW.acceptance_json IS NOT OLD.acceptance_json
  OR NEW.created_at IS NOT OLD.created_at
  OR (OLD.finalized_at IS NOT NULL AND NEW.finalized_at IS NOT OLD.finalized_at)
BEGIN
  SELECT RAISE(ABORT, 'handoffs: a frozen column cannot change');
END;
