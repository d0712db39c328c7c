-- 0001_init: handoffs, briefs, acceptance_criteria, evidence, approvals, gate_rejections
-- (store-and-finalize.md §4.1-§4.5). Released: never edit this file; add a new migration instead.
-- The runner owns transactions, journal_mode, foreign_keys and the schema_version table.

-- application_id 0x68616E64 (ASCII "hand"): set here, in the migration's transaction, so a file only ever carries
-- the id once it also carries the schema (store-and-finalize.md §2.1).
PRAGMA application_id = 1751215716;

CREATE TABLE briefs (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  workspace  TEXT    NOT NULL,
  name       TEXT    NOT NULL,
  title      TEXT,
  objective  TEXT,
  created_at TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  UNIQUE (workspace, name COLLATE NOCASE)
);

CREATE TABLE acceptance_criteria (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  brief_id    INTEGER NOT NULL REFERENCES briefs(id),
  ac_id       TEXT    NOT NULL,
  description TEXT    NOT NULL,
  position    INTEGER NOT NULL,
  created_at  TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  UNIQUE (brief_id, ac_id COLLATE NOCASE)
);
CREATE INDEX acceptance_criteria_brief_position_idx ON acceptance_criteria (brief_id, position);

CREATE TABLE handoffs (
  id                   INTEGER PRIMARY KEY AUTOINCREMENT,
  contract_id          TEXT    NOT NULL UNIQUE,
  agent_id             TEXT    NOT NULL,
  workspace            TEXT    NOT NULL CHECK (length(workspace) > 0),
  agent_state          TEXT    NOT NULL CHECK (agent_state IN ('DISPATCHED','IN_PROGRESS','APPROVAL_REQUEST','COMPLETE',
                                                              'BLOCKED','NEEDS_INPUT','NEEDS_VERIFICATION')),
  cut_reason           TEXT    CHECK (cut_reason IS NULL OR cut_reason IN ('never_finalized','backstop_capture')),
  raw_handoff_json     TEXT    NOT NULL CHECK (json_valid(raw_handoff_json)),
  kind                 TEXT,
  plan_task_id         TEXT    CHECK (plan_task_id IS NULL OR length(plan_task_id) > 0),
  parent_handoff_id    INTEGER REFERENCES handoffs(id),
  brief_id             INTEGER REFERENCES briefs(id),
  continues_handoff_id INTEGER REFERENCES handoffs(id),
  harness_id           TEXT,
  goal                 TEXT,
  consolidation        INTEGER NOT NULL DEFAULT 0 CHECK (consolidation IN (0,1)),
  can_write_json       TEXT    CHECK (can_write_json IS NULL OR json_valid(can_write_json)),
  acceptance_json      TEXT    CHECK (acceptance_json IS NULL OR json_valid(acceptance_json)),
  created_at           TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  updated_at           TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  CHECK (agent_state <> 'DISPATCHED'  OR cut_reason IS 'never_finalized'),
  CHECK (agent_state <> 'IN_PROGRESS' OR cut_reason IS 'backstop_capture'),
  CHECK (cut_reason IS NULL
         OR (cut_reason = 'never_finalized'  AND agent_state = 'DISPATCHED')
         OR (cut_reason = 'backstop_capture' AND agent_state = 'IN_PROGRESS'))
);

CREATE INDEX handoffs_workspace_created_idx ON handoffs (workspace, created_at);
CREATE INDEX handoffs_created_idx ON handoffs (created_at);
CREATE INDEX handoffs_state_idx ON handoffs (agent_state);
CREATE INDEX handoffs_agent_idx ON handoffs (agent_id);
CREATE INDEX handoffs_plan_task_idx ON handoffs (plan_task_id) WHERE plan_task_id IS NOT NULL;
CREATE INDEX handoffs_parent_idx ON handoffs (parent_handoff_id) WHERE parent_handoff_id IS NOT NULL;
CREATE UNIQUE INDEX handoffs_continues_uq ON handoffs (continues_handoff_id) WHERE continues_handoff_id IS NOT NULL;
CREATE INDEX handoffs_harness_idx ON handoffs (harness_id) WHERE harness_id IS NOT NULL;
CREATE INDEX handoffs_cut_idx ON handoffs (cut_reason) WHERE cut_reason IS NOT NULL;

CREATE TRIGGER handoffs_complete_write_once
BEFORE UPDATE OF agent_state, raw_handoff_json, cut_reason ON handoffs
WHEN OLD.agent_state = 'COMPLETE'
BEGIN
  SELECT RAISE(ABORT, 'COMPLETE is write-once');
END;

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
  OR NEW.can_write_json IS NOT OLD.can_write_json
  OR NEW.acceptance_json IS NOT OLD.acceptance_json
  OR NEW.created_at IS NOT OLD.created_at
BEGIN
  SELECT RAISE(ABORT, 'handoffs: a frozen column cannot change');
END;

CREATE TRIGGER handoffs_set_once
BEFORE UPDATE ON handoffs
WHEN (OLD.plan_task_id IS NOT NULL AND NEW.plan_task_id IS NOT OLD.plan_task_id)
  OR (OLD.brief_id IS NOT NULL AND NEW.brief_id IS NOT OLD.brief_id)
  OR (OLD.harness_id IS NOT NULL AND NEW.harness_id IS NOT OLD.harness_id)
BEGIN
  SELECT RAISE(ABORT, 'handoffs: plan_task_id, brief_id and harness_id are set-once');
END;

CREATE TABLE evidence (
  id               INTEGER PRIMARY KEY AUTOINCREMENT,
  brief_id         INTEGER NOT NULL REFERENCES briefs(id),
  ac_id            TEXT    NOT NULL,
  task_id          TEXT,
  type             TEXT    NOT NULL CHECK (type IN ('text','file','command_output','url','screenshot')),
  text             TEXT,
  artifact_path    TEXT,
  size_bytes       INTEGER NOT NULL CHECK (size_bytes >= 0),
  sha256           TEXT    NOT NULL CHECK (length(sha256) = 64 AND sha256 NOT GLOB '*[^0-9a-f]*'),
  created_by_agent TEXT,
  handoff_id       INTEGER REFERENCES handoffs(id),
  created_at       TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  CHECK ((text IS NULL) <> (artifact_path IS NULL))
);
CREATE INDEX evidence_brief_ac_idx ON evidence (brief_id, ac_id, created_at);
CREATE INDEX evidence_handoff_idx ON evidence (handoff_id) WHERE handoff_id IS NOT NULL;
CREATE INDEX evidence_artifact_idx ON evidence (artifact_path) WHERE artifact_path IS NOT NULL;

CREATE TABLE approvals (
  id            TEXT PRIMARY KEY CHECK (id GLOB 'P-*'),
  workspace     TEXT NOT NULL,
  agent_id      TEXT,
  contract_id   TEXT,
  status        TEXT NOT NULL DEFAULT 'pending'
                CHECK (status IN ('pending','approved','rejected','revoked','expired')),
  exact_content TEXT NOT NULL,
  fingerprint   TEXT NOT NULL,
  created_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  decided_at    TEXT,
  decided_by    TEXT,
  decision_note TEXT,
  CHECK ((status = 'pending') = (decided_at IS NULL))
);
CREATE INDEX approvals_status_idx ON approvals (status);
CREATE INDEX approvals_contract_idx ON approvals (contract_id);
CREATE INDEX approvals_agent_idx ON approvals (agent_id);

CREATE TRIGGER approvals_transition
BEFORE UPDATE OF status ON approvals
WHEN NEW.status IS NOT OLD.status
 AND NOT ((OLD.status = 'pending' AND NEW.status IN ('approved','rejected','expired'))
       OR (OLD.status = 'approved' AND NEW.status = 'revoked'))
BEGIN
  SELECT RAISE(ABORT, 'approvals: status transition refused');
END;

CREATE TRIGGER approvals_immutable
BEFORE UPDATE ON approvals
WHEN NEW.id IS NOT OLD.id
  OR NEW.exact_content IS NOT OLD.exact_content
  OR NEW.fingerprint IS NOT OLD.fingerprint
  OR NEW.created_at IS NOT OLD.created_at
BEGIN
  SELECT RAISE(ABORT, 'approvals: id, exact_content, fingerprint and created_at are immutable');
END;

CREATE TABLE gate_rejections (
  key             TEXT    PRIMARY KEY,
  attempts        INTEGER NOT NULL CHECK (attempts >= 1),
  tripped         INTEGER NOT NULL DEFAULT 0 CHECK (tripped IN (0,1)),
  last_codes_json TEXT    NOT NULL,
  contract_id     TEXT,
  updated_at      TEXT    NOT NULL
);
