-- 0007: when a person last edited a note (docs/DESIGN.md, "Editing").
--
-- `updated_at` moves on every write to the row (the AI's answer, a trash, a keep), so
-- it cannot say "edited": this does, set by an edit (body, title, tags, a tick) only.
-- Notes edited before this migration have no such time: NULL, "not edited".
ALTER TABLE notes ADD COLUMN edited_at TEXT;
