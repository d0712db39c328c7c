-- 0002_receipts (PostgreSQL): the receipts table (store-and-finalize.md §4.6), handoffs.require_receipt,
-- evidence.receipt_id, and handoffs_frozen re-created with require_receipt, as migrations/0002_receipts.sql.
-- Released: never edit this file.

CREATE TABLE receipts (
  receipt_id       text COLLATE "C" PRIMARY KEY CHECK (receipt_id ~ '^R-[0-9a-f]{16}$'),
  contract_id      text COLLATE "C" NOT NULL CHECK (length(contract_id) > 0),
  workspace        text COLLATE "C" NOT NULL CHECK (length(workspace) > 0),
  argv_json        text COLLATE "C" NOT NULL
                   CHECK (CASE WHEN handoff_json_valid(argv_json) THEN json_typeof(argv_json::json) = 'array' ELSE false END),
  shell            integer NOT NULL CHECK (shell IN (0,1)),
  command          text COLLATE "C" NOT NULL CHECK (length(command) > 0),
  cwd              text COLLATE "C" NOT NULL CHECK (length(cwd) > 0),
  started_at       text COLLATE "C" NOT NULL,
  finished_at      text COLLATE "C" NOT NULL,
  duration_ms      bigint  NOT NULL CHECK (duration_ms >= 0),
  exit_code        integer,
  signal           text COLLATE "C",
  timed_out        integer NOT NULL CHECK (timed_out IN (0,1)),
  outcome          text COLLATE "C" NOT NULL,
  stdout_sha256    text COLLATE "C" NOT NULL CHECK (stdout_sha256 ~ '^[0-9a-f]{64}$'),
  stderr_sha256    text COLLATE "C" NOT NULL CHECK (stderr_sha256 ~ '^[0-9a-f]{64}$'),
  stdout_bytes     bigint  NOT NULL CHECK (stdout_bytes >= 0),
  stderr_bytes     bigint  NOT NULL CHECK (stderr_bytes >= 0),
  stdout_text      text COLLATE "C",
  stderr_text      text COLLATE "C",
  stdout_path      text COLLATE "C",
  stderr_path      text COLLATE "C",
  git_head         text COLLATE "C",
  tree_fingerprint text COLLATE "C" CHECK (tree_fingerprint IS NULL OR tree_fingerprint ~ '^[0-9a-f]{64}$'),
  row_sha256       text COLLATE "C" NOT NULL CHECK (row_sha256 ~ '^[0-9a-f]{64}$'),
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
FOR EACH ROW EXECUTE FUNCTION handoff_refuse('receipts are immutable');

CREATE TRIGGER receipts_no_delete
BEFORE DELETE ON receipts
FOR EACH ROW EXECUTE FUNCTION handoff_refuse('receipts are immutable');

-- TRUNCATE skips row triggers; SQLite has no TRUNCATE, so this one has no twin there.
CREATE TRIGGER receipts_no_truncate
BEFORE TRUNCATE ON receipts
FOR EACH STATEMENT EXECUTE FUNCTION handoff_refuse('receipts are immutable');

ALTER TABLE handoffs ADD COLUMN require_receipt integer NOT NULL DEFAULT 0 CHECK (require_receipt IN (0,1));

ALTER TABLE evidence ADD COLUMN receipt_id text COLLATE "C" REFERENCES receipts(receipt_id);

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
  OR NEW.created_at IS DISTINCT FROM OLD.created_at)
EXECUTE FUNCTION handoff_refuse('handoffs: a frozen column cannot change');
