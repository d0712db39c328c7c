-- 0008_approval_gate: approvals enforced at the moment of action. A dispatched contract may carry approval patterns
-- (handoffs.require_approval_json, a JSON array of strings, inherited by continuations), and the pre-tool gate
-- (`handoff approval gate`) records the one tool call an approval let run (approvals.used_by_tool_use_id, with the
-- contract of the chain that ran it in used_by_contract_id). Released: never edit this file.
ALTER TABLE handoffs ADD COLUMN require_approval_json TEXT CHECK (require_approval_json IS NULL OR length(require_approval_json) > 0);

ALTER TABLE approvals ADD COLUMN used_by_tool_use_id TEXT CHECK (used_by_tool_use_id IS NULL OR length(used_by_tool_use_id) > 0);

ALTER TABLE approvals ADD COLUMN used_by_contract_id TEXT CHECK (used_by_contract_id IS NULL OR length(used_by_contract_id) > 0);
