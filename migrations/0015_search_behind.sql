-- 0015: a captured note's search entries are written behind its capture, in batches
-- (docs/DESIGN.md, "Search"; issue #38 point 3).
--
-- Writing a note's two FTS5 rows inside its capture's transaction made every commit
-- flush a new segment of each index, and FTS5 then merged those tiny segments: a
-- quarter to a third of the repository's work per capture, measured. Now a new note's key goes into
-- search_pending, and `Store::index_pending` writes the FTS5 rows of every pending note
-- at once: before anything reads the index (a search is never missing a note captured
-- before it), and whenever 256 notes wait. A note edited or deleted while pending
-- changes nothing in the index (its rows are not there yet; the batch reads the note as
-- it is then), and its pending row goes with it.

CREATE TABLE search_pending (
    key INTEGER PRIMARY KEY  -- note_search_keys.key of a note not yet in search_titles/_bodies
);

DROP TRIGGER search_after_note_insert;
CREATE TRIGGER search_after_note_insert AFTER INSERT ON notes BEGIN
    INSERT INTO note_search_keys (note_id) VALUES (new.id);
    INSERT INTO search_pending (key)
    VALUES ((SELECT key FROM note_search_keys WHERE note_id = new.id));
END;

DROP TRIGGER search_after_note_delete;
CREATE TRIGGER search_after_note_delete AFTER DELETE ON notes BEGIN
    DELETE FROM search_titles
    WHERE rowid = (SELECT key FROM note_search_keys WHERE note_id = old.id);
    DELETE FROM search_bodies
    WHERE rowid = (SELECT key FROM note_search_keys WHERE note_id = old.id);
    DELETE FROM search_pending
    WHERE key = (SELECT key FROM note_search_keys WHERE note_id = old.id);
    DELETE FROM note_search_keys WHERE note_id = old.id;
END;
