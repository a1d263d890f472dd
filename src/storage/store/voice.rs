//! Voice notes in the store: a recording captured as a pending note with an empty body
//! and a `transcribe` job (its file written durably first, `crate::storage::recordings`),
//! the voice notes' worker's reads (its jobs, a recording), its words saved as the
//! note's body (the job becomes an `enrich` one, at once), and the files of notes
//! deleted for good swept away. The enriching worker never sees a `transcribe` job
//! (`queue.rs` reads `enrich` jobs alone).

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use rusqlite::{params, OptionalExtension};

use super::queue::job_from_row;
use super::{Job, Store, StoreError, StoreResult};
use crate::api::changes::ChangeKind;
use crate::api::voice::AudioFormat;
use crate::domain::{timestamp, Note};
use crate::storage::recordings;

/// Every `transcribe` job of an active note, earliest first.
const VOICE_JOBS_SQL: &str =
    "SELECT j.note_id, j.attempts, j.next_run_at, j.wait_reason, j.slow_timeouts
     FROM pending_jobs j JOIN notes n ON n.id = j.note_id
     WHERE j.kind = 'transcribe' AND n.deleted_at IS NULL
     ORDER BY j.next_run_at, j.note_id";

/// A recording waiting for its words, as the voice notes' worker sends it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recording {
    pub note_id: String,
    pub format: AudioFormat,
    pub audio: Vec<u8>,
}

impl Store {
    /// The folder of recordings: `voice/` beside the database file.
    pub fn recordings_folder(&self) -> StoreResult<PathBuf> {
        self.database_path()
            .map(recordings::folder_beside)
            .ok_or_else(|| {
                StoreError::Unavailable("recordings are kept beside a database file".into())
            })
    }

    /// Stores a recording as a new pending voice note: the file first (fsynced), then
    /// the note (empty body), its `transcribe` job and its recording's row, in one
    /// transaction. Durable on return; on an error nothing is stored (the file is
    /// removed again).
    pub fn capture_voice(
        &mut self,
        audio: &[u8],
        format: AudioFormat,
        now: DateTime<Utc>,
    ) -> StoreResult<Note> {
        let folder = self.recordings_folder()?;
        let id = uuid::Uuid::now_v7().to_string();
        let path = recordings::write_durably(&folder, &id, format, audio)
            .map_err(|e| StoreError::recording("saving the recording", &e))?;
        let at = timestamp(now);
        let stored = self.write(|w| {
            w.execute(
                "INSERT INTO notes (id, body, ai_status, created_at, updated_at)
                 VALUES (?1, '', 'pending', ?2, ?2)",
                params![id, at],
            )?;
            w.execute(
                "INSERT INTO pending_jobs (note_id, attempts, next_run_at, kind)
                 VALUES (?1, 0, ?2, 'transcribe')",
                params![id, at],
            )?;
            w.execute(
                "INSERT INTO voice_recordings (note_id, format, bytes) VALUES (?1, ?2, ?3)",
                params![id, format.extension(), audio.len() as i64],
            )?;
            w.record(&id, ChangeKind::Captured, now)
        });
        if let Err(error) = stored {
            if let Err(e) = recordings::remove(&path) {
                tracing::warn!(path = %path.display(), error = %e, "a recording whose note was not stored is left; the next start removes it");
            }
            return Err(error);
        }
        self.get(&id)
    }

    /// Every voice note waiting for its words (the voice notes' worker's view after a
    /// start), earliest first.
    pub fn voice_jobs(&self) -> StoreResult<Vec<Job>> {
        let mut stmt = self.conn.prepare_cached(VOICE_JOBS_SQL)?;
        let jobs = stmt
            .query_map([], job_from_row)?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(jobs)
    }

    /// The recording of a voice note still waiting for its words (active, pending,
    /// its job a `transcribe` one); `None` when it no longer waits.
    pub fn waiting_recording(&self, note_id: &str) -> StoreResult<Option<Recording>> {
        let format: Option<String> = self
            .conn
            .prepare_cached(
                "SELECT v.format FROM voice_recordings v
                 JOIN notes n ON n.id = v.note_id
                 JOIN pending_jobs j ON j.note_id = v.note_id
                 WHERE v.note_id = ?1 AND n.deleted_at IS NULL AND n.ai_status = 'pending'
                   AND j.kind = 'transcribe'",
            )?
            .query_row([note_id], |r| r.get(0))
            .optional()?;
        let Some(format) = format else {
            return Ok(None);
        };
        let format = AudioFormat::from_extension(&format)
            .ok_or_else(|| StoreError::Unavailable(format!("unknown recording format {format}")))?;
        let path = recordings::file_of(&self.recordings_folder()?, note_id, format);
        let audio =
            std::fs::read(&path).map_err(|e| StoreError::recording("reading the recording", &e))?;
        Ok(Some(Recording {
            note_id: note_id.to_string(),
            format,
            audio,
        }))
    }

    /// Saves a voice note's words as its body, in one transaction: the note stays
    /// pending, its job becomes an `enrich` one due `now` with no attempts, its
    /// recording is marked transcribed. The log records it as an edit of the body (the
    /// kinds of `note_changes` are fixed by migration 0009). With `keep_audio` false
    /// the recording's file is removed once the words are stored. A note that no
    /// longer waits (trashed, deleted, typed into meanwhile) is not touched:
    /// [`StoreError::Stale`] or [`StoreError::NotFound`].
    pub fn save_transcript(
        &mut self,
        note_id: &str,
        text: &str,
        keep_audio: bool,
        now: DateTime<Utc>,
    ) -> StoreResult<Note> {
        let at = timestamp(now);
        let format: String = self.write(|w| {
            let changed = w.execute(
                "UPDATE notes SET body = ?2, updated_at = ?3
                 WHERE id = ?1 AND ai_status = 'pending' AND body = '' AND deleted_at IS NULL
                   AND EXISTS (SELECT 1 FROM pending_jobs j
                               WHERE j.note_id = ?1 AND j.kind = 'transcribe')",
                params![note_id, text, at],
            )?;
            if changed == 0 {
                let exists: Option<String> = w
                    .query_row("SELECT id FROM notes WHERE id = ?1", [note_id], |r| {
                        r.get(0)
                    })
                    .optional()?;
                return Err(match exists {
                    Some(_) => StoreError::Stale(note_id.to_string()),
                    None => StoreError::NotFound(note_id.to_string()),
                });
            }
            w.execute(
                "UPDATE pending_jobs SET kind = 'enrich', attempts = 0, next_run_at = ?2,
                     last_error = NULL, wait_reason = NULL, slow_timeouts = 0
                 WHERE note_id = ?1",
                params![note_id, at],
            )?;
            w.execute(
                "UPDATE voice_recordings SET transcribed_at = ?2, audio_deleted = ?3
                 WHERE note_id = ?1",
                params![note_id, at, !keep_audio],
            )?;
            w.record(note_id, ChangeKind::Edited, now)?;
            Ok(w.query_row(
                "SELECT format FROM voice_recordings WHERE note_id = ?1",
                [note_id],
                |r| r.get(0),
            )?)
        })?;
        if !keep_audio {
            if let (Some(format), Ok(folder)) = (
                AudioFormat::from_extension(&format),
                self.recordings_folder(),
            ) {
                let path = recordings::file_of(&folder, note_id, format);
                if let Err(e) = recordings::remove(&path) {
                    tracing::warn!(path = %path.display(), error = %e, "cannot remove a transcribed recording; the next sweep tries again");
                }
            }
        }
        self.get(note_id)
    }

    /// Removes the recordings no note keeps: those of notes deleted for good, those
    /// `keep_audio = false` gave up, and the partial files a crash left. Returns how
    /// many went. Run on the repository's thread (after a deletion for good, at start),
    /// where no capture is half-way. Without a database file, nothing to do.
    pub fn sweep_recordings(&self) -> StoreResult<usize> {
        let Ok(folder) = self.recordings_folder() else {
            return Ok(0);
        };
        let files = recordings::listed(&folder)
            .map_err(|e| StoreError::recording("listing recordings", &e))?;
        let mut kept = self.conn.prepare_cached(
            "SELECT format FROM voice_recordings WHERE note_id = ?1 AND audio_deleted = 0",
        )?;
        let mut removed = 0;
        for (note_id, path) in files {
            let format: Option<String> = kept.query_row([&note_id], |r| r.get(0)).optional()?;
            let keeps = format
                .and_then(|format| AudioFormat::from_extension(&format))
                .is_some_and(|format| recordings::file_of(&folder, &note_id, format) == path);
            if !keeps {
                recordings::remove(&path)
                    .map_err(|e| StoreError::recording("removing a recording", &e))?;
                removed += 1;
            }
        }
        Ok(removed)
    }
}
