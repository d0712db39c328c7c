-- 0007_mirror_rev: the draft revision a row's envelope reflects. Each draft write numbers its save (a revision kept
-- beside the draft, bumped under the draft's lock) and copies the envelope onto the open row after releasing that
-- lock, only when the row holds an older revision (`mirror_rev < @rev`): a slow copy of an older save that lands
-- after a newer one changes nothing. Finalize records the revision it closed the row with.
-- Released: never edit this file.
ALTER TABLE handoffs ADD COLUMN mirror_rev bigint NOT NULL DEFAULT 0 CHECK (mirror_rev >= 0);
