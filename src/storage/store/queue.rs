//! The durable AI queue (`pending_jobs`): the job rows the worker loads at start and
//! reads ahead, and every write of the worker's (an answer saved, a failure parked,
//! counted or final, a slow note's timeout), with the retries that put failed notes
//! back in line: all of them or those the missing model failed, and one note by hand.
//! A status change and its job row change share one transaction.

use chrono::{DateTime, TimeZone, Utc};
use rusqlite::{params, params_from_iter, OptionalExtension, Row};

use super::error::found;
use super::tags::{tags_in_use, to_json};
use super::{Store, StoreError, StoreResult};
use crate::api::changes::ChangeKind;
use crate::domain::{timestamp, AiStatus, Enrichment, Note, WaitReason};
use crate::reminders::suggestion;

/// A row of the durable AI queue, for an active (not trashed) pending note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    pub note_id: String,
    pub attempts: u32,
    pub next_run_at: DateTime<Utc>,
    pub wait_reason: Option<WaitReason>,
    /// Calls that ran out of time while Ollama was up.
    pub slow_timeouts: u32,
}

/// `retry_all_failed`, first statement: every failed active note back to pending,
/// stamped with ?1; returns their ids.
pub const REQUEUE_FAILED_SQL: &str =
    "UPDATE notes SET ai_status = 'pending', ai_error = NULL, updated_at = ?1
     WHERE ai_status = 'failed' AND deleted_at IS NULL RETURNING id";

/// The notes that failed because the model was missing (an error an older release
/// counted as the note's: "other: HTTP 404: model 'llama3.2' not found"): one
/// condition for the read that looks and the write that requeues.
macro_rules! model_missing {
    () => {
        "ai_status = 'failed' AND deleted_at IS NULL
       AND ai_error LIKE 'other: HTTP 404: model %not found%'"
    };
}

/// `requeue_model_missing_failures`, first statement: as [`REQUEUE_FAILED_SQL`], only
/// for notes that failed because the model was missing.
pub const REQUEUE_MODEL_MISSING_SQL: &str = concat!(
    "UPDATE notes SET ai_status = 'pending', ai_error = NULL, updated_at = ?1
     WHERE ",
    model_missing!(),
    " RETURNING id"
);

/// A row when any note [`REQUEUE_MODEL_MISSING_SQL`] would requeue is there.
pub const ANY_MODEL_MISSING_SQL: &str =
    concat!("SELECT 1 FROM notes WHERE ", model_missing!(), " LIMIT 1");

/// `retry_all_failed`, second statement: a fresh job row for each note the first one
/// stamped with ?1 (found through `notes_active_by_status`).
/// A voice note still without its words is requeued to be transcribed.
pub const INSERT_REQUEUED_JOBS_SQL: &str =
    "INSERT OR IGNORE INTO pending_jobs (note_id, attempts, next_run_at, kind)
     SELECT id, 0, ?1, CASE WHEN EXISTS (SELECT 1 FROM voice_recordings v
                                         WHERE v.note_id = notes.id AND v.transcribed_at IS NULL)
                            THEN 'transcribe' ELSE 'enrich' END
     FROM notes
     WHERE ai_status = 'pending' AND deleted_at IS NULL AND updated_at = ?1";

/// Every enrichment job of an active note, earliest first (a voice note's
/// `transcribe` job is the voice notes' worker's, `voice.rs`). The queue drives the join (`CROSS JOIN` keeps SQLite's order): left to itself, with
/// no statistics, SQLite walked every active note's index entry and looked each up in
/// the queue, reading pages across the whole file at every start (and stopping
/// start-up on damage there that the check at start should have been the one to find).
pub const ALL_JOBS_SQL: &str =
    "SELECT j.note_id, j.attempts, j.next_run_at, j.wait_reason, j.slow_timeouts
     FROM pending_jobs j CROSS JOIN notes n ON n.id = j.note_id
     WHERE n.deleted_at IS NULL AND j.kind = 'enrich'
     ORDER BY j.next_run_at, j.note_id";

impl Store {
    /// Every job of an active note (the worker's view after a restart), earliest first.
    pub fn all_jobs(&self) -> StoreResult<Vec<Job>> {
        let mut stmt = self.conn.prepare_cached(ALL_JOBS_SQL)?;
        let jobs = stmt
            .query_map([], job_from_row)?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(jobs)
    }

    /// The job row of one active note, if it has one.
    pub fn job(&self, note_id: &str) -> StoreResult<Option<Job>> {
        Ok(self
            .conn
            .prepare_cached(
                "SELECT j.note_id, j.attempts, j.next_run_at, j.wait_reason, j.slow_timeouts
                 FROM pending_jobs j JOIN notes n ON n.id = j.note_id
                 WHERE j.note_id = ?1 AND n.deleted_at IS NULL",
            )?
            .query_row([note_id], job_from_row)
            .optional()?)
    }

    /// The bodies of those of `ids` that are still pending and active (the worker's
    /// prefetch: one query for the next jobs instead of one per job).
    pub fn pending_bodies(&self, ids: &[String]) -> StoreResult<Vec<(String, String)>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let placeholders = vec!["?"; ids.len()].join(", ");
        let mut stmt = self.conn.prepare(&format!(
            "SELECT id, body FROM notes
             WHERE id IN ({placeholders}) AND ai_status = 'pending' AND deleted_at IS NULL
               AND NOT EXISTS (SELECT 1 FROM pending_jobs j
                               WHERE j.note_id = notes.id AND j.kind = 'transcribe')"
        ))?;
        let bodies = stmt
            .query_map(params_from_iter(ids.iter()), |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(bodies)
    }

    /// Every failed active note back to pending with a fresh job row, in ONE
    /// transaction. Returns their ids (in no particular order); empty writes nothing.
    ///
    /// Two passes over the failed notes, not three: the status update returns the ids
    /// (`RETURNING`), and the job rows are made from the notes it just stamped with
    /// `now`. The job insert is `INSERT OR IGNORE`: should a failed note somehow still
    /// have a row, it is kept as it is rather than failing the whole retry (a race
    /// guard); a pending note that already had `updated_at = now` has its row already.
    pub fn retry_all_failed(&mut self, now: DateTime<Utc>) -> StoreResult<Vec<String>> {
        self.requeue_failed(REQUEUE_FAILED_SQL, now)
    }

    /// Notes that failed only because the model was missing back to pending, as
    /// [`Store::retry_all_failed`] does for all: a missing model is the provider's state
    /// now, and such a note was never at fault. Run when the model is there.
    ///
    /// It runs at every start, once the model is seen, and there is usually no such
    /// note: a read says so first, and then nothing is written. A write would wait for
    /// the check at start's verdict on the repository's thread, and every read queued
    /// behind it with it (1–3 s at 100,000 notes).
    pub fn requeue_model_missing_failures(
        &mut self,
        now: DateTime<Utc>,
    ) -> StoreResult<Vec<String>> {
        let any = self
            .conn
            .prepare_cached(ANY_MODEL_MISSING_SQL)?
            .exists([])?;
        if !any {
            return Ok(Vec::new());
        }
        self.requeue_failed(REQUEUE_MODEL_MISSING_SQL, now)
    }

    /// Requeues the failed notes `select` stamps with `now` (and returns).
    fn requeue_failed(&mut self, select: &str, now: DateTime<Utc>) -> StoreResult<Vec<String>> {
        let at = timestamp(now);
        self.write(|w| {
            let ids = {
                let mut stmt = w.prepare_cached(select)?;
                let ids = stmt
                    .query_map([&at], |r| r.get(0))?
                    .collect::<Result<Vec<String>, _>>()?;
                ids
            };
            if ids.is_empty() {
                return Ok(ids); // nothing matched: nothing was written
            }
            w.execute(INSERT_REQUEUED_JOBS_SQL, [&at])?;
            w.record_all(&ids, ChangeKind::Requeued, now)?;
            Ok(ids)
        })
    }

    /// Asks for a note's AI again, by hand: a done or failed note goes back to pending
    /// with a fresh job (attempts 0), as a capture does; a pending one keeps its job
    /// with attempts 0. Either way the job goes to the front of the queue (due before
    /// every other). Its title, tags and summary stay until new ones replace them. A
    /// note in the trash is a conflict: restore it first. Replies with the note and
    /// what it was.
    pub fn request_enrichment(
        &mut self,
        note_id: &str,
        now: DateTime<Utc>,
    ) -> StoreResult<(Note, AiStatus)> {
        let before = self.get(note_id)?;
        if before.deleted_at.is_some() {
            return Err(StoreError::Conflict(format!(
                "note {note_id} is in the trash; restore it first"
            )));
        }
        self.write(|tx| {
            let earliest: Option<String> = tx.query_row(
                "SELECT MIN(next_run_at) FROM pending_jobs WHERE note_id <> ?1",
                [note_id],
                |r| r.get(0),
            )?;
            let earliest = earliest
                .and_then(|at| DateTime::parse_from_rfc3339(&at).ok())
                .map(|at| at.with_timezone(&Utc) - chrono::Duration::milliseconds(1));
            let front = timestamp(earliest.map_or(now, |at| at.min(now)));
            if before.ai_status == AiStatus::Pending {
                tx.execute(
                    "UPDATE pending_jobs SET attempts = 0, next_run_at = ?2, wait_reason = NULL,
                     last_error = NULL
                 WHERE note_id = ?1",
                    params![note_id, front],
                )?;
            } else {
                tx.execute(
                    "UPDATE notes SET ai_status = 'pending', ai_error = NULL, updated_at = ?2
                 WHERE id = ?1",
                    params![note_id, timestamp(now)],
                )?;
                // A voice note without its words yet is transcribed again.
                tx.execute(
                    "INSERT INTO pending_jobs (note_id, attempts, next_run_at, kind)
                     VALUES (?1, 0, ?2, CASE WHEN EXISTS (
                         SELECT 1 FROM voice_recordings v
                         WHERE v.note_id = ?1 AND v.transcribed_at IS NULL)
                       THEN 'transcribe' ELSE 'enrich' END)",
                    params![note_id, front],
                )?;
            }
            // Logged even for a note pending already: its job moved to the front.
            tx.record(note_id, ChangeKind::Requeued, now)
        })?;
        Ok((self.get(note_id)?, before.ai_status))
    }

    /// Parks a job after an unreachable/timeout failure: sets `next_run_at`,
    /// `last_error` (and marks it as waiting on the provider); never touches `attempts`.
    pub fn set_next_run_at(
        &mut self,
        note_id: &str,
        at: DateTime<Utc>,
        last_error: &str,
    ) -> StoreResult<()> {
        self.check_file()?;
        let changed = self.conn.prepare_cached(
            "UPDATE pending_jobs SET next_run_at = ?2, last_error = ?3, wait_reason = 'provider'
             WHERE note_id = ?1",
        )?
        .execute(params![note_id, timestamp(at), last_error])?;
        found(changed, note_id)
    }

    /// Records a slow note's timeout (its call ran out of time while Ollama was up): the
    /// count of such timeouts, when it runs next (waiting out its own delay), the
    /// error. Never touches `attempts`.
    pub fn record_slow_timeout(
        &mut self,
        note_id: &str,
        next_run_at: DateTime<Utc>,
        slow_timeouts: u32,
        last_error: &str,
    ) -> StoreResult<()> {
        self.check_file()?;
        let changed = self
            .conn
            .prepare_cached(
                "UPDATE pending_jobs SET slow_timeouts = ?2, next_run_at = ?3, last_error = ?4,
                     wait_reason = 'retry'
                 WHERE note_id = ?1",
            )?
            .execute(params![
                note_id,
                slow_timeouts,
                timestamp(next_run_at),
                last_error
            ])?;
        found(changed, note_id)
    }

    /// Counts a schema/other failure and schedules the next attempt. Returns the new
    /// attempt count.
    pub fn increment_job_attempt(
        &mut self,
        note_id: &str,
        next_run_at: DateTime<Utc>,
        last_error: &str,
    ) -> StoreResult<u32> {
        self.check_file()?;
        self.conn
            .prepare_cached(
                "UPDATE pending_jobs
                 SET attempts = attempts + 1, next_run_at = ?2, last_error = ?3,
                     wait_reason = ?4
                 WHERE note_id = ?1 RETURNING attempts",
            )?
            .query_row(
                params![
                    note_id,
                    timestamp(next_run_at),
                    last_error,
                    WaitReason::Retry.as_str()
                ],
                |r| r.get(0),
            )
            .optional()?
            .ok_or_else(|| StoreError::NotFound(note_id.to_string()))
    }

    /// Gives up on a note: status `failed` with its error, job row deleted, one
    /// transaction. Returns the note as it is now.
    pub fn mark_ai_failed(
        &mut self,
        note_id: &str,
        error: &str,
        now: DateTime<Utc>,
    ) -> StoreResult<Note> {
        let changed = self.write(|w| {
            let changed = w.execute(
                "UPDATE notes SET ai_status = 'failed', ai_error = ?2, updated_at = ?3
                 WHERE id = ?1 AND ai_status = 'pending'",
                params![note_id, error, timestamp(now)],
            )?;
            w.execute("DELETE FROM pending_jobs WHERE note_id = ?1", [note_id])?;
            if changed > 0 {
                w.record(note_id, ChangeKind::Failed, now)?;
            }
            Ok(changed)
        })?;
        found(changed, note_id)?;
        self.get(note_id)
    }

    /// Saves the AI's answer for `body_read`, the body it was asked about: status
    /// `done`, job row deleted, one transaction. A title or tags the user set stay (the
    /// answer's are dropped); the answer's tags are stored under the spellings already
    /// in use ([`Vocabulary::tidy`]). The time the answer's words name, if any, is the
    /// note's suggested reminder, read in this machine's time zone (the person's: the
    /// service runs on their desktop); see [`Store::save_enrichment_in`]. A note edited
    /// since the AI read it is not touched ([`StoreError::Stale`]): its new job stands.
    /// Returns the note as it is now.
    pub fn save_enrichment(
        &mut self,
        note_id: &str,
        body_read: &str,
        enrichment: &Enrichment,
        now: DateTime<Utc>,
    ) -> StoreResult<Note> {
        self.save_enrichment_in(note_id, body_read, enrichment, now, &chrono::Local)
    }

    /// [`Store::save_enrichment`] with the person's time zone given: the answer's
    /// `remind_phrase` is resolved against the note's capture time in `zone`
    /// (`crate::reminders::suggestion`), and offered unless the note has a reminder or
    /// its suggestion was dismissed.
    pub fn save_enrichment_in<Tz: TimeZone>(
        &mut self,
        note_id: &str,
        body_read: &str,
        enrichment: &Enrichment,
        now: DateTime<Utc>,
        zone: &Tz,
    ) -> StoreResult<Note> {
        self.write(|tx| {
            let tags = tags_in_use(tx)?.tidy(enrichment.tags.clone());
            let tags_json = to_json(&tags)?;
            let saved: Option<(String, bool, bool)> = tx
                .query_row(
                    "UPDATE notes SET
                     title = CASE WHEN title_set_by_user THEN title ELSE ?2 END,
                     summary = ?3,
                     tags = CASE WHEN tags_set_by_user THEN tags ELSE ?4 END,
                     ai_status = 'done', ai_error = NULL, updated_at = ?5, ai_read_chars = ?7
                 WHERE id = ?1 AND ai_status = 'pending' AND body = ?6
                 RETURNING created_at, remind_at IS NOT NULL, remind_suggestion_dismissed",
                    params![
                        note_id,
                        enrichment.title,
                        enrichment.summary,
                        tags_json,
                        timestamp(now),
                        body_read,
                        enrichment.read_chars
                    ],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
                )
                .optional()?;
            let Some((created_at, has_reminder, dismissed)) = saved else {
                let still_pending: Option<String> = tx
                    .query_row(
                        "SELECT id FROM notes WHERE id = ?1 AND ai_status = 'pending'",
                        [note_id],
                        |r| r.get(0),
                    )
                    .optional()?;
                return Err(match still_pending {
                    Some(_) => StoreError::Stale(note_id.to_string()),
                    None => StoreError::NotFound(note_id.to_string()),
                });
            };
            let proposed = enrichment.remind_phrase.as_deref().and_then(|phrase| {
                let captured = parse_timestamp(&created_at, 0).ok()?;
                match suggestion::resolve(phrase, captured, now, zone) {
                    Ok(at) => Some(at),
                    Err(why) => {
                        tracing::info!(note_id, %why, "the AI's reminder phrase gives no suggestion");
                        None
                    }
                }
            });
            let standing = suggestion::Standing {
                has_reminder,
                dismissed,
            };
            tx.execute(
                "UPDATE notes SET remind_suggested_at = ?2 WHERE id = ?1",
                params![
                    note_id,
                    suggestion::offered(standing, proposed).map(timestamp)
                ],
            )?;
            // The tag index follows the log (a user's tags stay as they were).
            tx.execute("DELETE FROM pending_jobs WHERE note_id = ?1", [note_id])?;
            tx.record(note_id, ChangeKind::Enriched, now)
        })?;
        self.get(note_id)
    }
}

fn parse_timestamp(text: &str, column: usize) -> rusqlite::Result<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|e| {
            rusqlite::Error::FromSqlConversionFailure(column, rusqlite::types::Type::Text, e.into())
        })
}

pub(super) fn job_from_row(r: &Row) -> rusqlite::Result<Job> {
    let at: String = r.get(2)?;
    let wait: Option<String> = r.get(3)?;
    Ok(Job {
        note_id: r.get(0)?,
        attempts: r.get(1)?,
        next_run_at: parse_timestamp(&at, 2)?,
        wait_reason: wait.as_deref().and_then(WaitReason::parse),
        slow_timeouts: r.get(4)?,
    })
}
