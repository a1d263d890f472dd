-- 0001: notes and the durable AI queue (docs/DESIGN.md, "Data").
-- Applied by src/storage/migrations.rs inside one transaction with the version bump,
-- so a crash mid-migration leaves the previous version intact.

CREATE TABLE notes (
    id          TEXT PRIMARY KEY,             -- UUID v7: sortable by creation
    body        TEXT NOT NULL,                -- as typed
    title       TEXT,                         -- AI output, NULL until done
    summary     TEXT,                         -- AI output, NULL until done
    tags        TEXT NOT NULL DEFAULT '[]',   -- AI output as a JSON array (note_tags indexes it)
    ai_status   TEXT NOT NULL DEFAULT 'pending'
                CHECK (ai_status IN ('pending', 'done', 'failed')),
    ai_error    TEXT,                         -- last error when failed
    created_at  TEXT NOT NULL,                -- RFC 3339 UTC, fixed width (ms)
    updated_at  TEXT NOT NULL,
    deleted_at  TEXT,                         -- NULL = active, set = in the trash
    kept_at     TEXT                          -- set when the user keeps it past expiry
);

-- One row per (tag, note): filtering by tag is a primary-key range scan.
CREATE TABLE note_tags (
    tag     TEXT NOT NULL,
    note_id TEXT NOT NULL REFERENCES notes (id) ON DELETE CASCADE,
    PRIMARY KEY (tag, note_id)
) WITHOUT ROWID;
CREATE INDEX note_tags_by_note ON note_tags (note_id);

-- The durable AI queue: a note is pending exactly while it has a row here.
CREATE TABLE pending_jobs (
    note_id     TEXT PRIMARY KEY REFERENCES notes (id) ON DELETE CASCADE,
    attempts    INTEGER NOT NULL DEFAULT 0,   -- counted schema/other failures only
    next_run_at TEXT NOT NULL,                -- not tried before this
    last_error  TEXT
);
CREATE INDEX pending_jobs_by_next_run ON pending_jobs (next_run_at);

-- Active notes by status, newest update first: count_failed, count_pending,
-- find_failed_ids and retry_all_failed read only this index.
CREATE INDEX notes_active_by_status ON notes (ai_status, updated_at)
    WHERE deleted_at IS NULL;
-- Active notes newest first (lists and their keyset cursor).
CREATE INDEX notes_active_by_created ON notes (created_at, id)
    WHERE deleted_at IS NULL;
-- Notes that can expire (active, never kept), by age: count_expired reads only this.
CREATE INDEX notes_expirable_by_created ON notes (created_at)
    WHERE deleted_at IS NULL AND kept_at IS NULL;
-- The trash, newest first, and the purge of old trash.
CREATE INDEX notes_trashed_by_created ON notes (created_at, id)
    WHERE deleted_at IS NOT NULL;
CREATE INDEX notes_trashed_by_deleted ON notes (deleted_at)
    WHERE deleted_at IS NOT NULL;
