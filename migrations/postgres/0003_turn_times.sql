-- 0003_turn_times (PostgreSQL): handoffs.finalized_at (amendments-2.md §H2) and handoffs.gate_seen_at (§E5), as
-- migrations/0003_turn_times.sql: finalized_at is set once (frozen once set), gate_seen_at is free. Both are the
-- store's own clock (here the server's). Released: never edit this file.

ALTER TABLE handoffs ADD COLUMN finalized_at text COLLATE "C";

ALTER TABLE handoffs ADD COLUMN gate_seen_at text COLLATE "C";

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
  OR NEW.can_write_json IS DISTINCT FROM OLD.can_write_json
  OR NEW.acceptance_json IS DISTINCT FROM OLD.acceptance_json
  OR NEW.created_at IS DISTINCT FROM OLD.created_at
  OR (OLD.finalized_at IS NOT NULL AND NEW.finalized_at IS DISTINCT FROM OLD.finalized_at))
EXECUTE FUNCTION handoff_refuse('handoffs: a frozen column cannot change');
