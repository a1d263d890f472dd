-- 0002: why a job is waiting (docs/DESIGN.md, "The worker policy", "Restart").
-- After a restart, jobs that were only waiting out a provider outage must run as soon as
-- the provider is healthy, while a job waiting out its own schema/other retry delay keeps
-- its time. next_run_at alone cannot tell the two apart.
--   NULL        never failed (fresh capture or manual retry): due at next_run_at
--   'provider'  parked because the provider was unreachable or timed out
--   'retry'     waiting out its own retry delay after a schema/other failure
ALTER TABLE pending_jobs ADD COLUMN wait_reason TEXT
    CHECK (wait_reason IS NULL OR wait_reason IN ('provider', 'retry'));
