-- 0009: the change log (issue #36 point 3; docs/DESIGN.md, "The change log").
--
-- One row for every write to a note, written by `Store::write` (store/changes.rs) in the
-- write's own transaction: a note is never stored without its row, nor a row without
-- its note's change. `seq` only grows: AUTOINCREMENT never hands out a number again,
-- even after the newest rows are deleted, and a rolled-back write takes its number back
-- with it, so the sequence has no gaps until the log is compacted. The vector index, the
-- tag index (`note_tags`) and the live feed follow this log; `GET /api/changes` pages
-- through it. No text is kept here: a note deleted for good leaves its id and when.
CREATE TABLE note_changes (
    seq     INTEGER PRIMARY KEY AUTOINCREMENT,
    note_id TEXT NOT NULL,
    kind    TEXT NOT NULL CHECK (kind IN ('captured', 'imported', 'edited', 'enriched',
        'failed', 'requeued', 'retagged', 'trashed', 'restored', 'kept', 'embedded',
        'deleted')),
    at      TEXT NOT NULL
);
-- A note's changes, newest last: the compaction keeps each note's newest.
CREATE INDEX note_changes_by_note ON note_changes (note_id, seq);

-- The notes already stored, as captured (or imported) when they were last written, in
-- the order they were made: a reader starting from 0 hears of every note.
INSERT INTO note_changes (note_id, kind, at)
SELECT id, CASE WHEN deleted_at IS NULL THEN 'captured' ELSE 'trashed' END, updated_at
FROM notes ORDER BY created_at, id;
