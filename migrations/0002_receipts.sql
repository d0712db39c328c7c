-- 0002_receipts: the receipts table (store-and-finalize.md §4.6), handoffs.require_receipt, evidence.receipt_id,
-- and handoffs_frozen re-created with require_receipt. Released: never edit this file.
-- ALTER TABLE ADD COLUMN: a REFERENCES column must default to NULL; a CHECK is allowed and is tested against the
-- existing rows (the defaults satisfy it).

CREATE TABLE receipts (
  receipt_id       TEXT    PRIMARY KEY
                   CHECK (length(receipt_id) = 18 AND substr(receipt_id, 1, 2) = 'R-'
                          AND substr(receipt_id, 3) NOT GLOB '*[^0-9a-f]*'),
  contract_id      TEXT    NOT NULL CHECK (length(contract_id) > 0),
  workspace        TEXT    NOT NULL CHECK (length(workspace) > 0),
  argv_json        TEXT    NOT NULL CHECK (json_valid(argv_json) AND json_type(argv_json) = 'array'),
  shell            INTEGER NOT NULL CHECK (shell IN (0,1)),
  command          TEXT    NOT NULL CHECK (length(command) > 0),
  cwd              TEXT    NOT NULL CHECK (length(cwd) > 0),
  started_at       TEXT    NOT NULL,
  finished_at      TEXT    NOT NULL,
  duration_ms      INTEGER NOT NULL CHECK (duration_ms >= 0),
  exit_code        INTEGER,
  signal           TEXT,
  timed_out        INTEGER NOT NULL CHECK (timed_out IN (0,1)),
  outcome          TEXT    NOT NULL,
  stdout_sha256    TEXT    NOT NULL CHECK (length(stdout_sha256) = 64 AND stdout_sha256 NOT GLOB '*[^0-9a-f]*'),
  stderr_sha256    TEXT    NOT NULL CHECK (length(stderr_sha256) = 64 AND stderr_sha256 NOT GLOB '*[^0-9a-f]*'),
  stdout_bytes     INTEGER NOT NULL CHECK (stdout_bytes >= 0),
  stderr_bytes     INTEGER NOT NULL CHECK (stderr_bytes >= 0),
  stdout_text      TEXT,
  stderr_text      TEXT,
  stdout_path      TEXT,
  stderr_path      TEXT,
  git_head         TEXT,
  tree_fingerprint TEXT    CHECK (tree_fingerprint IS NULL
                                  OR (length(tree_fingerprint) = 64 AND tree_fingerprint NOT GLOB '*[^0-9a-f]*')),
  row_sha256       TEXT    NOT NULL CHECK (length(row_sha256) = 64 AND row_sha256 NOT GLOB '*[^0-9a-f]*'),
  CHECK (finished_at >= started_at),
  CHECK (exit_code IS NULL OR (signal IS NULL AND timed_out = 0)),
  CHECK (outcome = CASE exit_code WHEN 0 THEN 'pass' WHEN 1 THEN 'fail' ELSE 'unproven' END),
  CHECK ((stdout_text IS NULL) <> (stdout_path IS NULL)),
  CHECK ((stderr_text IS NULL) <> (stderr_path IS NULL)),
  CHECK ((git_head IS NULL) = (tree_fingerprint IS NULL))
);
CREATE INDEX receipts_contract_idx ON receipts (contract_id);

CREATE TRIGGER receipts_no_update
BEFORE UPDATE ON receipts
BEGIN
  SELECT RAISE(ABORT, 'receipts are immutable');
END;

CREATE TRIGGER receipts_no_delete
BEFORE DELETE ON receipts
BEGIN
  SELECT RAISE(ABORT, 'receipts are immutable');
END;

ALTER TABLE handoffs ADD COLUMN require_receipt INTEGER NOT NULL DEFAULT 0 CHECK (require_receipt IN (0,1));

ALTER TABLE evidence ADD COLUMN receipt_id TEXT REFERENCES receipts(receipt_id);

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
BEGIN
  SELECT RAISE(ABORT, 'handoffs: a frozen column cannot change');
END;
