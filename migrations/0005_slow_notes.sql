-- 0005: a note that runs out of time while Ollama is up (docs/DESIGN.md, "The worker
-- policy", "Slow notes"). Such a timeout is the note's, not an outage: the note is tried
-- again later with a deadline that doubles per such timeout, and after a few it is shown
-- as slow. The count must survive a restart, or a long note would start again from the
-- shortest deadline every time the service starts.
ALTER TABLE pending_jobs ADD COLUMN slow_timeouts INTEGER NOT NULL DEFAULT 0;
