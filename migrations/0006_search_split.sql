-- 0006: the search index split by who writes what (docs/DESIGN.md, "Search"; issue #30
-- point 2, issue #29 point 6).
--
-- Migration 0003 kept one FTS5 row per note holding its title, tags and body. FTS5
-- rewrites a whole row when any of its columns changes, and with `secure-delete` every
-- term of the old row is looked up and scrubbed from the index: saving an AI answer
-- (a new title and tags) rewrote the body's terms too, 5–15 ms a save over 100,000
-- notes, and a tag rename did that for every note carrying the tag (~9 minutes for
-- 20,000 notes). Now each kind of text lives apart and changes only when it changes:
--
-- - search_titles: a note's title, one row per note (keyed like before by
--   note_search_keys.key). A saved answer rewrites only this short row, and for a note
--   still pending its old row is empty: nothing to scrub.
-- - search_bodies: a note's body, one row per note, rewritten only by an edit of it.
-- - search_tags: each distinct tag once (keyed by tag_search_keys.key), kept by
--   triggers on tag_uses (migration 0004). A note's tags are found through note_tags,
--   so renaming a tag on 20,000 notes changes two rows of this index, not 20,000.
--
-- Every table keeps `secure-delete` on: a note (or the last note of a tag) deleted for
-- good leaves none of its terms in the index. The old index is dropped with the
-- connection's `secure_delete` on (Store::open sets it before migrating), so its pages
-- are zeroed as they are freed.

DROP TRIGGER notes_search_after_insert;
DROP TRIGGER notes_search_after_update;
DROP TRIGGER notes_search_after_delete;
DROP TABLE notes_search;

CREATE VIRTUAL TABLE search_titles USING fts5(title, tokenize = 'trigram');
INSERT INTO search_titles (search_titles, rank) VALUES ('secure-delete', 1);
CREATE VIRTUAL TABLE search_bodies USING fts5(body, tokenize = 'trigram');
INSERT INTO search_bodies (search_bodies, rank) VALUES ('secure-delete', 1);

-- A distinct tag's row in search_tags: an INTEGER PRIMARY KEY, stable under VACUUM
-- (tag_uses' own rowid is not).
CREATE TABLE tag_search_keys (
    key INTEGER PRIMARY KEY,
    tag TEXT NOT NULL UNIQUE
);
CREATE VIRTUAL TABLE search_tags USING fts5(tag, tokenize = 'trigram');
INSERT INTO search_tags (search_tags, rank) VALUES ('secure-delete', 1);

-- A note's tags are searched through note_tags now, no longer through its `tags`
-- column: any tag the column has and note_tags lacks (a row written around the store)
-- is indexed first (migration 0004's triggers count it), then every tag in use.
INSERT OR IGNORE INTO note_tags (tag, note_id, active)
SELECT j.value, n.id, n.deleted_at IS NULL FROM notes n, json_each(n.tags) j
WHERE j.type = 'text';
INSERT INTO tag_search_keys (tag) SELECT tag FROM tag_uses ORDER BY tag;
INSERT INTO search_tags (rowid, tag) SELECT key, tag FROM tag_search_keys;

CREATE TRIGGER search_after_note_insert AFTER INSERT ON notes BEGIN
    INSERT INTO note_search_keys (note_id) VALUES (new.id);
    INSERT INTO search_titles (rowid, title)
    VALUES ((SELECT key FROM note_search_keys WHERE note_id = new.id), coalesce(new.title, ''));
    INSERT INTO search_bodies (rowid, body)
    VALUES ((SELECT key FROM note_search_keys WHERE note_id = new.id), new.body);
END;

-- `UPDATE OF` fires whenever the column is in the statement's SET, changed or not (an
-- answer's save names the title even when the user's is kept): WHEN skips those.
CREATE TRIGGER search_after_title_update AFTER UPDATE OF title ON notes
WHEN old.title IS NOT new.title BEGIN
    UPDATE search_titles SET title = coalesce(new.title, '')
    WHERE rowid = (SELECT key FROM note_search_keys WHERE note_id = new.id);
END;

CREATE TRIGGER search_after_body_update AFTER UPDATE OF body ON notes
WHEN old.body IS NOT new.body BEGIN
    UPDATE search_bodies SET body = new.body
    WHERE rowid = (SELECT key FROM note_search_keys WHERE note_id = new.id);
END;

CREATE TRIGGER search_after_note_delete AFTER DELETE ON notes BEGIN
    DELETE FROM search_titles
    WHERE rowid = (SELECT key FROM note_search_keys WHERE note_id = old.id);
    DELETE FROM search_bodies
    WHERE rowid = (SELECT key FROM note_search_keys WHERE note_id = old.id);
    DELETE FROM note_search_keys WHERE note_id = old.id;
END;

-- tag_uses has a row exactly while some note (in the trash or not) has the tag. Its
-- upsert fires AFTER INSERT only when the row is new.
CREATE TRIGGER search_after_tag_insert AFTER INSERT ON tag_uses BEGIN
    INSERT INTO tag_search_keys (tag) VALUES (new.tag);
    INSERT INTO search_tags (rowid, tag)
    VALUES ((SELECT key FROM tag_search_keys WHERE tag = new.tag), new.tag);
END;

CREATE TRIGGER search_after_tag_delete AFTER DELETE ON tag_uses BEGIN
    DELETE FROM search_tags
    WHERE rowid = (SELECT key FROM tag_search_keys WHERE tag = old.tag);
    DELETE FROM tag_search_keys WHERE tag = old.tag;
END;

-- A tag rename in progress (Store::rename_tag_slice): each slice of notes is its own
-- transaction, and this row, written in the same transactions, says how far it got, so
-- a rename cut short by a crash is finished at the next start (RepositoryActor).
-- `after_note`: the last note id done (notes are taken in id order); NULL before the
-- first slice.
CREATE TABLE tag_renames (
    from_tag   TEXT PRIMARY KEY,
    to_tag     TEXT NOT NULL,
    merged     INTEGER NOT NULL CHECK (merged IN (0, 1)),
    after_note TEXT,
    notes      INTEGER NOT NULL DEFAULT 0
);

-- The notes already stored. note_search_keys keeps its keys: only the text moves.
INSERT INTO search_titles (rowid, title)
SELECT k.key, coalesce(n.title, '') FROM notes n JOIN note_search_keys k ON k.note_id = n.id;
INSERT INTO search_bodies (rowid, body)
SELECT k.key, n.body FROM notes n JOIN note_search_keys k ON k.note_id = n.id;
