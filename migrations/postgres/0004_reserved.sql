-- 0004_reserved: an empty step that keeps the numbering contiguous on a branch that does not carry the approvals
-- migration of the same number. It is replaced by that migration when the branches meet; it changes nothing.
SELECT 1;
