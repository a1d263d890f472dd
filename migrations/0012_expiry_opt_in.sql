-- 0012: expiry is the person's choice, and an imported note ages from its import
-- (docs/DESIGN.md, "Expiry"; issue #42 point 6).
--
-- `imported_at`: when the note came in by an import (RFC 3339, UTC); NULL for a note
-- written here. A note's expiry counts from `coalesce(imported_at, created_at)`, so years
-- of notes imported today are not all expired today.
ALTER TABLE notes ADD COLUMN imported_at TEXT;

-- Notes that can expire (active, never kept), by the time they came: the expired count,
-- filter, keep and trash read only this. The expression is the one they use, word for
-- word, so SQLite can use the index.
DROP INDEX notes_expirable_by_created;
CREATE INDEX notes_expirable_by_arrival ON notes (coalesce(imported_at, created_at))
    WHERE deleted_at IS NULL AND kept_at IS NULL;

-- The person's answer to "should notes you never kept expire?" (its one row). No row:
-- not answered yet, so notes do not expire (`expiry.choice` in the settings may decide
-- instead).
CREATE TABLE expiry_choice (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    choice     TEXT NOT NULL CHECK (choice IN ('on', 'off')),
    chosen_at  TEXT NOT NULL
);
