-- 0014: the AI's suggested reminder, and which notes a person has opened
-- (docs/DESIGN.md, "Reminders"; issue #41).
--
-- `remind_suggested_at`: an instant (RFC 3339, UTC) the AI read in the note's own
-- words, resolved against its capture time; shown for the person to accept or dismiss.
-- It is never the reminder itself: `remind_at` is set only by a person (by hand, or by
-- accepting). `remind_suggestion_dismissed`: the person said no; the note is offered no
-- suggestion again, whatever the AI answers later (Try again, an edit).
ALTER TABLE notes ADD COLUMN remind_suggested_at TEXT;
ALTER TABLE notes ADD COLUMN remind_suggestion_dismissed INTEGER NOT NULL DEFAULT 0
    CHECK (remind_suggestion_dismissed IN (0, 1));

-- When a person last opened the note (the page's note view, `POST
-- /api/notes/{id}/opened`): Today lists yesterday's notes never opened. A view, not an
-- edit: not in the change log, `updated_at` not moved.
ALTER TABLE notes ADD COLUMN opened_at TEXT;

-- Today's "captured yesterday, never opened": a range of `created_at` over those rows.
CREATE INDEX notes_unopened ON notes (created_at)
    WHERE opened_at IS NULL AND deleted_at IS NULL;
