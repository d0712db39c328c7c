-- 0008_approval_gate (PostgreSQL): as migrations/0008_approval_gate.sql. Approval patterns on a dispatched contract
-- (handoffs.require_approval_json, inherited by continuations) and the one tool call an approval let run
-- (approvals.used_by_tool_use_id, used_by_contract_id). Released: never edit this file.
ALTER TABLE handoffs ADD COLUMN require_approval_json text COLLATE "C" CHECK (require_approval_json IS NULL OR length(require_approval_json) > 0);

ALTER TABLE approvals ADD COLUMN used_by_tool_use_id text COLLATE "C" CHECK (used_by_tool_use_id IS NULL OR length(used_by_tool_use_id) > 0);

ALTER TABLE approvals ADD COLUMN used_by_contract_id text COLLATE "C" CHECK (used_by_contract_id IS NULL OR length(used_by_contract_id) > 0);
