-- 0004_approval_use (PostgreSQL): as migrations/0004_approval_use.sql. An approved approval is used once (status
-- 'used', used_at, used_by_handoff_id; reached only from 'approved', keeping its decision, final), and evidence can
-- be linked to the contract that deposited it (evidence.contract_id). Released: never edit this file.

ALTER TABLE approvals DROP CONSTRAINT approvals_status_check;

ALTER TABLE approvals ADD CONSTRAINT approvals_status_check
  CHECK (status IN ('pending','approved','rejected','revoked','expired','used'));

ALTER TABLE approvals ADD COLUMN used_at text COLLATE "C";

ALTER TABLE approvals ADD COLUMN used_by_handoff_id bigint REFERENCES handoffs(id);

ALTER TABLE approvals ADD CONSTRAINT approvals_used_at_check CHECK ((status = 'used') = (used_at IS NOT NULL));

ALTER TABLE approvals ADD CONSTRAINT approvals_used_by_check CHECK ((status = 'used') = (used_by_handoff_id IS NOT NULL));

DROP TRIGGER approvals_transition ON approvals;

CREATE TRIGGER approvals_transition
BEFORE UPDATE OF status ON approvals
FOR EACH ROW WHEN (NEW.status IS DISTINCT FROM OLD.status
 AND NOT ((OLD.status = 'pending' AND NEW.status IN ('approved','rejected','expired'))
       OR (OLD.status = 'approved' AND NEW.status IN ('revoked','used'))))
EXECUTE FUNCTION handoff_refuse('approvals: status transition refused');

CREATE TRIGGER approvals_used_keeps_decision
BEFORE UPDATE ON approvals
FOR EACH ROW WHEN (OLD.status = 'used'
  OR (NEW.status = 'used' AND (NEW.decided_at IS DISTINCT FROM OLD.decided_at
                               OR NEW.decided_by IS DISTINCT FROM OLD.decided_by
                               OR NEW.decision_note IS DISTINCT FROM OLD.decision_note)))
EXECUTE FUNCTION handoff_refuse('approvals: a used approval is final and keeps its decision');

ALTER TABLE evidence ADD COLUMN contract_id text COLLATE "C" CHECK (contract_id IS NULL OR length(contract_id) > 0);

CREATE INDEX evidence_contract_idx ON evidence (contract_id) WHERE contract_id IS NOT NULL;
