-- 0006_list_indexes: `contract list --agent-id` and `--state` read their newest rows straight from an index, so an
-- agent (or state) whose only row is the oldest of a large store costs no more than a busy one; without these the
-- plan walks the whole created_at index backwards and filters. The workspace filter has its index since 0001.
-- Released: never edit this file.
CREATE INDEX handoffs_agent_created_idx ON handoffs (agent_id, created_at, id);
CREATE INDEX handoffs_state_created_idx ON handoffs (agent_state, created_at, id);
