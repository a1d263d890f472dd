-- 0010: a reminder on a note (docs/DESIGN.md, "Reminders"; issue #41).
--
-- `remind_at` is an instant (RFC 3339, UTC, like every timestamp here): a change of
-- time zone or daylight saving moves no reminder. A note with a time has a state;
-- without one, none.
ALTER TABLE notes ADD COLUMN remind_at TEXT;
ALTER TABLE notes ADD COLUMN remind_state TEXT
    CHECK (remind_state IN ('open', 'done', 'snoozed'));

-- The reminders still to come or due: a range of `remind_at` over few rows.
CREATE INDEX notes_reminders ON notes (remind_at)
    WHERE remind_at IS NOT NULL AND remind_state <> 'done' AND deleted_at IS NULL;

-- Which time each reminder was last shown for, so that it is shown once for that time,
-- a restart or a wake included; a new time (set again, snoozed) is shown again. Not
-- the note's own data: not in `notes`, not in the change log.
CREATE TABLE reminder_shown (
    note_id   TEXT PRIMARY KEY REFERENCES notes (id) ON DELETE CASCADE,
    remind_at TEXT NOT NULL
);

-- The daily review's last day (its one row): shown once a day, a restart included.
CREATE TABLE reminder_review (
    id       INTEGER PRIMARY KEY CHECK (id = 1),
    last_day TEXT NOT NULL  -- YYYY-MM-DD on the person's wall clock
);

-- The change log's kinds gain `reminded` (a reminder set, cleared, done or snoozed).
-- SQLite cannot change a CHECK in place: the table is made again with the same rows,
-- `seq` kept, and its AUTOINCREMENT mark kept too (it may be above the newest row
-- after a compaction), so no number is ever handed out twice.
CREATE TABLE note_changes_0010 (
    seq     INTEGER PRIMARY KEY AUTOINCREMENT,
    note_id TEXT NOT NULL,
    kind    TEXT NOT NULL CHECK (kind IN ('captured', 'imported', 'edited', 'enriched',
        'failed', 'requeued', 'retagged', 'trashed', 'restored', 'kept', 'embedded',
        'deleted', 'reminded')),
    at      TEXT NOT NULL
);
INSERT INTO note_changes_0010 (seq, note_id, kind, at)
SELECT seq, note_id, kind, at FROM note_changes ORDER BY seq;
DELETE FROM sqlite_sequence WHERE name = 'note_changes_0010';
INSERT INTO sqlite_sequence (name, seq)
SELECT 'note_changes_0010', seq FROM sqlite_sequence WHERE name = 'note_changes';
DROP TABLE note_changes;
ALTER TABLE note_changes_0010 RENAME TO note_changes;
CREATE INDEX note_changes_by_note ON note_changes (note_id, seq);
