-- 0004: which of a note's fields the user set by hand (docs/DESIGN.md, "Editing").
--
-- A title or tags the user set are the user's: the AI never overwrites them again
-- (Store::save_enrichment keeps them). The body is always the user's; the summary is
-- always the AI's.
ALTER TABLE notes ADD COLUMN title_set_by_user INTEGER NOT NULL DEFAULT 0
    CHECK (title_set_by_user IN (0, 1));
ALTER TABLE notes ADD COLUMN tags_set_by_user INTEGER NOT NULL DEFAULT 0
    CHECK (tags_set_by_user IN (0, 1));

-- How many notes have each tag, kept by triggers, so that the prompt's most used tags,
-- the tags view and the tidying of new tags read a few hundred rows instead of
-- counting every note's tags (1.1 s over 100,000 notes: docs/PERFORMANCE.md, "Tags").
-- note_tags.active mirrors whether its note is out of the trash.
ALTER TABLE note_tags ADD COLUMN active INTEGER NOT NULL DEFAULT 1;
UPDATE note_tags SET active = 0
WHERE note_id IN (SELECT id FROM notes WHERE deleted_at IS NOT NULL);

CREATE TABLE tag_uses (
    tag         TEXT PRIMARY KEY,
    uses        INTEGER NOT NULL,   -- notes with the tag, the trash included
    active_uses INTEGER NOT NULL    -- notes with the tag out of the trash
);
INSERT INTO tag_uses (tag, uses, active_uses)
SELECT tag, COUNT(*), SUM(active) FROM note_tags GROUP BY tag;

CREATE TRIGGER tag_uses_after_insert AFTER INSERT ON note_tags BEGIN
    INSERT INTO tag_uses (tag, uses, active_uses) VALUES (new.tag, 1, new.active)
    ON CONFLICT (tag) DO UPDATE SET uses = uses + 1, active_uses = active_uses + new.active;
END;

CREATE TRIGGER tag_uses_after_delete AFTER DELETE ON note_tags BEGIN
    UPDATE tag_uses SET uses = uses - 1, active_uses = active_uses - old.active
    WHERE tag = old.tag;
    DELETE FROM tag_uses WHERE tag = old.tag AND uses <= 0;
END;

CREATE TRIGGER tag_uses_after_update AFTER UPDATE OF tag, active ON note_tags BEGIN
    UPDATE tag_uses SET uses = uses - 1, active_uses = active_uses - old.active
    WHERE tag = old.tag;
    DELETE FROM tag_uses WHERE tag = old.tag AND uses <= 0;
    INSERT INTO tag_uses (tag, uses, active_uses) VALUES (new.tag, 1, new.active)
    ON CONFLICT (tag) DO UPDATE SET uses = uses + 1, active_uses = active_uses + new.active;
END;

-- Trash and restore move a note's tags out of and back into the active counts.
CREATE TRIGGER note_tags_follow_the_trash AFTER UPDATE OF deleted_at ON notes
WHEN (old.deleted_at IS NULL) <> (new.deleted_at IS NULL) BEGIN
    UPDATE note_tags SET active = (new.deleted_at IS NULL) WHERE note_id = new.id;
END;
