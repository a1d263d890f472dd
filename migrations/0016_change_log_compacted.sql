-- 0016: how far the change log is compacted (docs/DESIGN.md, "The change log";
-- src/storage/store/compaction.rs).
--
-- Its one row: every change up to `upto` that a newer change of its note superseded
-- when the last compaction step ran is gone. A row superseded later is superseded by a
-- change after `upto`, so the next pass reads the log from here, not from its start.
-- No row: never compacted (from 0).
CREATE TABLE change_log_compacted (
    id   INTEGER PRIMARY KEY CHECK (id = 1),
    upto INTEGER NOT NULL
);
