-- 0011: voice notes (docs/DESIGN.md, "Voice notes").
--
-- A voice note is a note whose body is empty until its recording's words come back from
-- the speech-to-text server. Its work is a job of the one durable queue, of a kind of its
-- own: 'transcribe' until the words are stored, then 'enrich' as any note's. The worker
-- that enriches reads only 'enrich' jobs; the voice notes' worker only 'transcribe' ones.
-- A pending note still has exactly one job row.
ALTER TABLE pending_jobs ADD COLUMN kind TEXT NOT NULL DEFAULT 'enrich'
    CHECK (kind IN ('enrich', 'transcribe'));

-- The recording of each voice note: its file is <data_dir>/voice/<note_id>.<format>,
-- written and fsynced before the note's row. The row goes with the note (deleted for
-- good); the file is then swept (src/storage/store/voice.rs).
CREATE TABLE voice_recordings (
    note_id         TEXT PRIMARY KEY REFERENCES notes (id) ON DELETE CASCADE,
    format          TEXT NOT NULL CHECK (format IN ('wav', 'webm', 'ogg', 'mp3')),
    bytes           INTEGER NOT NULL,
    transcribed_at  TEXT,   -- NULL until its words are the note's body
    audio_deleted   INTEGER NOT NULL DEFAULT 0  -- transcription.keep_audio = false removed it
);
