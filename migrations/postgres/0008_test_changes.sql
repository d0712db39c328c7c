-- 0008_test_changes (PostgreSQL): a dispatched turn's test files (amendments-4 §E3, §Z11), as
-- migrations/0008_test_changes.sql: test_base_json (the base dispatch takes, set once) and test_changes_json (what
-- finalize detected beside what was declared; a COMPLETE row's never changes). Released: never edit this file.
ALTER TABLE handoffs ADD COLUMN test_base_json text COLLATE "C"
  CHECK (test_base_json IS NULL OR handoff_json_valid(test_base_json));

ALTER TABLE handoffs ADD COLUMN test_changes_json text COLLATE "C"
  CHECK (test_changes_json IS NULL OR handoff_json_valid(test_changes_json));

CREATE TRIGGER handoffs_test_base_set_once
BEFORE UPDATE OF test_base_json ON handoffs
FOR EACH ROW WHEN (OLD.test_base_json IS NOT NULL AND NEW.test_base_json IS DISTINCT FROM OLD.test_base_json)
EXECUTE FUNCTION handoff_refuse('handoffs: test_base_json is set-once');

CREATE TRIGGER handoffs_test_changes_complete
BEFORE UPDATE OF test_changes_json ON handoffs
FOR EACH ROW WHEN (OLD.agent_state = 'COMPLETE' AND NEW.test_changes_json IS DISTINCT FROM OLD.test_changes_json)
EXECUTE FUNCTION handoff_refuse('COMPLETE is write-once');
