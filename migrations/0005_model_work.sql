-- 0005: what a real model's limits leave behind (docs/DESIGN.md, "The worker policy").
--
-- A note that runs out of time while Ollama is up is slow, not an outage: it is tried
-- again later with a deadline that doubles per such timeout, and after a few it is shown
-- as slow. The count must survive a restart, or a long note would start again from the
-- shortest deadline every time the service starts.
ALTER TABLE pending_jobs ADD COLUMN slow_timeouts INTEGER NOT NULL DEFAULT 0;
-- A note longer than the model's context is cut by inkling, keeping its beginning; the
-- enrichment then says how much of it the model read. NULL: the whole note.
ALTER TABLE notes ADD COLUMN ai_read_chars INTEGER;
