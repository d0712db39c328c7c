-- 0004_approval_use: an approved approval is used once (status 'used', used_at, used_by_handoff_id), and evidence
-- can be linked to the contract that deposited it (evidence.contract_id). Released: never edit this file.
-- SQLite cannot widen a CHECK in place, so approvals is rebuilt: same rows, same indexes, its triggers re-created.
-- 'used' is reached only from 'approved' (by the finalize that stores the executing turn), keeps decided_at,
-- decided_by and decision_note, and is final.

CREATE TABLE approvals_v4 (
  id                 TEXT PRIMARY KEY CHECK (id GLOB 'P-*'),
  workspace          TEXT NOT NULL,
  agent_id           TEXT,
  contract_id        TEXT,
  status             TEXT NOT NULL DEFAULT 'pending'
                     CHECK (status IN ('pending','approved','rejected','revoked','expired','used')),
  exact_content      TEXT NOT NULL,
  fingerprint        TEXT NOT NULL,
  created_at         TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  decided_at         TEXT,
  decided_by         TEXT,
  decision_note      TEXT,
  used_at            TEXT,
  used_by_handoff_id INTEGER REFERENCES handoffs(id),
  CHECK ((status = 'pending') = (decided_at IS NULL)),
  CHECK ((status = 'used') = (used_at IS NOT NULL)),
  CHECK ((status = 'used') = (used_by_handoff_id IS NOT NULL))
);

INSERT INTO approvals_v4 (id, workspace, agent_id, contract_id, status, exact_content, fingerprint, created_at,
                          decided_at, decided_by, decision_note)
SELECT id, workspace, agent_id, contract_id, status, exact_content, fingerprint, created_at,
       decided_at, decided_by, decision_note
  FROM approvals;

DROP TABLE approvals;

ALTER TABLE approvals_v4 RENAME TO approvals;

CREATE INDEX approvals_status_idx ON approvals (status);
CREATE INDEX approvals_contract_idx ON approvals (contract_id);
CREATE INDEX approvals_agent_idx ON approvals (agent_id);

CREATE TRIGGER approvals_transition
BEFORE UPDATE OF status ON approvals
WHEN NEW.status IS NOT OLD.status
 AND NOT ((OLD.status = 'pending' AND NEW.status IN ('approved','rejected','expired'))
       OR (OLD.status = 'approved' AND NEW.status IN ('revoked','used')))
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

CREATE TRIGGER approvals_used_keeps_decision
BEFORE UPDATE ON approvals
WHEN OLD.status = 'used'
  OR (NEW.status = 'used' AND (NEW.decided_at IS NOT OLD.decided_at
                               OR NEW.decided_by IS NOT OLD.decided_by
                               OR NEW.decision_note IS NOT OLD.decision_note))
BEGIN
  SELECT RAISE(ABORT, 'approvals: a used approval is final and keeps its decision');
END;

ALTER TABLE evidence ADD COLUMN contract_id TEXT CHECK (contract_id IS NULL OR length(contract_id) > 0);

CREATE INDEX evidence_contract_idx ON evidence (contract_id) WHERE contract_id IS NOT NULL;
