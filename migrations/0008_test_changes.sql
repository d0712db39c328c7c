-- 0008_test_changes: a dispatched turn's test files (amendments-4 §E3, §Z11). test_base_json is the base dispatch
-- takes in its work directory (real path, git HEAD, tree fingerprint, globs, --protect-tests, each test file's
-- sha256), set once; test_changes_json is what finalize detected since that base (added, modified, deleted, with old
-- and new sha256) beside what the envelope declared. Finalize writes it before it stores the closing state, and a
-- COMPLETE row's detection never changes. Released: never edit this file.
ALTER TABLE handoffs ADD COLUMN test_base_json TEXT CHECK (test_base_json IS NULL OR json_valid(test_base_json));

ALTER TABLE handoffs ADD COLUMN test_changes_json TEXT CHECK (test_changes_json IS NULL OR json_valid(test_changes_json));

CREATE TRIGGER handoffs_test_base_set_once
BEFORE UPDATE OF test_base_json ON handoffs
WHEN OLD.test_base_json IS NOT NULL AND NEW.test_base_json IS NOT OLD.test_base_json
BEGIN
  SELECT RAISE(ABORT, 'handoffs: test_base_json is set-once');
END;

CREATE TRIGGER handoffs_test_changes_complete
BEFORE UPDATE OF test_changes_json ON handoffs
WHEN OLD.agent_state = 'COMPLETE' AND NEW.test_changes_json IS NOT OLD.test_changes_json
BEGIN
  SELECT RAISE(ABORT, 'COMPLETE is write-once');
END;
