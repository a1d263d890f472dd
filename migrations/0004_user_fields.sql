-- 0004: which of a note's fields the user set by hand (docs/DESIGN.md, "Editing").
--
-- A title or tags the user set are the user's: the AI never overwrites them again
-- (Store::save_enrichment keeps them). The body is always the user's; the summary is
-- always the AI's.
ALTER TABLE notes ADD COLUMN title_set_by_user INTEGER NOT NULL DEFAULT 0
    CHECK (title_set_by_user IN (0, 1));
ALTER TABLE notes ADD COLUMN tags_set_by_user INTEGER NOT NULL DEFAULT 0
    CHECK (tags_set_by_user IN (0, 1));
