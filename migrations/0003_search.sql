-- 0003: full-text search over notes (docs/DESIGN.md, "Search").
--
-- notes_search holds each note's title, tags (space-separated) and body, indexed with
-- FTS5's trigram tokenizer: every run of three characters is a term, so a query matches
-- inside words, in scripts written without spaces (Korean, Japanese, Chinese) as in
-- English, and a word's beginning finds the whole word ("tomat" finds "tomatoes").
--
-- The index's row for a note is note_search_keys.key, an INTEGER PRIMARY KEY: notes'
-- own rowid is not stable (VACUUM may renumber a table without one).
--
-- Triggers keep the index in the transaction of every write that changes a note's text
-- (capture, enrichment, edit) or removes it, so a search never shows a stale or a
-- deleted note. Trashing changes no text: search reads deleted_at from notes itself.

CREATE TABLE note_search_keys (
    key     INTEGER PRIMARY KEY,
    note_id TEXT NOT NULL UNIQUE
);

CREATE VIRTUAL TABLE notes_search USING fts5(
    title, tags, body,
    tokenize = 'trigram'
);
-- A deleted note's terms leave the index at once instead of at the next merge: a note
-- deleted for good leaves no trace in it.
INSERT INTO notes_search (notes_search, rank) VALUES ('secure-delete', 1);

CREATE TRIGGER notes_search_after_insert AFTER INSERT ON notes BEGIN
    INSERT INTO note_search_keys (note_id) VALUES (new.id);
    INSERT INTO notes_search (rowid, title, tags, body)
    VALUES (
        (SELECT key FROM note_search_keys WHERE note_id = new.id),
        coalesce(new.title, ''),
        (SELECT coalesce(group_concat(value, ' '), '') FROM json_each(new.tags)),
        new.body
    );
END;

CREATE TRIGGER notes_search_after_update AFTER UPDATE OF body, title, tags ON notes BEGIN
    UPDATE notes_search SET
        title = coalesce(new.title, ''),
        tags = (SELECT coalesce(group_concat(value, ' '), '') FROM json_each(new.tags)),
        body = new.body
    WHERE rowid = (SELECT key FROM note_search_keys WHERE note_id = new.id);
END;

CREATE TRIGGER notes_search_after_delete AFTER DELETE ON notes BEGIN
    DELETE FROM notes_search
    WHERE rowid = (SELECT key FROM note_search_keys WHERE note_id = old.id);
    DELETE FROM note_search_keys WHERE note_id = old.id;
END;

-- The notes already stored, oldest first.
INSERT INTO note_search_keys (note_id) SELECT id FROM notes ORDER BY created_at, id;
INSERT INTO notes_search (rowid, title, tags, body)
SELECT k.key,
       coalesce(n.title, ''),
       (SELECT coalesce(group_concat(value, ' '), '') FROM json_each(n.tags)),
       n.body
FROM notes n JOIN note_search_keys k ON k.note_id = n.id;
