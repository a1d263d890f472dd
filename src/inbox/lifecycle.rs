//! A note's life after capture: to the trash and back, kept past expiry, the expired
//! to the trash at once, deleted for good, and the hourly upkeep: the purge of notes in
//! the trash past `trash.retention_days`, and the change log compacted to each note's
//! newest change.
//!
//! The job row is left alone by the trash (a trashed pending note stays pending); the
//! worker is told to forget it, so a body it read ahead is never sent, and a restored
//! pending note is tracked again with its stored attempts, so a trip through the
//! trash buys no extra attempts.

use std::time::Duration;

use super::{unavailable, Inbox};
use crate::actors::ai_worker::{Forget, TrackJob};
use crate::actors::repository::{
    CompactChanges, DeleteForever, EmptyTrash, KeepExpiredNotes, KeepNote, PurgeTrash, RestoreNote,
    TrashExpiredNotes, TrashNote,
};
use crate::actors::telemetry::Emit;
use crate::domain::{AiStatus, Note};
use crate::storage::{StoreResult, COMPACT_STEP};
use crate::telemetry::events::{NoFields, UsageEvent};

/// How often the trash is checked for notes past their retention. Hourly: 24 wake-ups
/// a day is nothing, and a note lingers at most an hour past its time.
pub const PURGE_EVERY: Duration = Duration::from_secs(3600);

/// How old a change must be before the compaction may drop it (when a newer one of its
/// note is there): a reader of the log that reads at least this often hears of every
/// step (docs/API.md, "The change log").
pub const COMPACT_AFTER: chrono::Duration = chrono::Duration::hours(1);

impl Inbox {
    /// Moves a note to the trash; `note_trashed` when it was not there yet.
    pub async fn trash(&self, id: String) -> StoreResult<Note> {
        let now = self.clock.now();
        let outcome = self
            .repository
            .send(TrashNote { id, now })
            .await
            .map_err(unavailable)??;
        if outcome.changed {
            self.trashed(vec![outcome.note.id.clone()]);
        }
        Ok(outcome.note)
    }

    /// Takes a note out of the trash (`note_restored`); a pending one is queued again
    /// with its stored attempts.
    pub async fn restore(&self, id: String) -> StoreResult<Note> {
        let now = self.clock.now();
        let outcome = self
            .repository
            .send(RestoreNote { id, now })
            .await
            .map_err(unavailable)??;
        if outcome.changed {
            self.telemetry
                .do_send(Emit(UsageEvent::NoteRestored(NoFields {})));
            if outcome.note.ai_status == AiStatus::Pending {
                self.worker.do_send(TrackJob {
                    note_id: outcome.note.id.clone(),
                });
                self.reload_voice_jobs();
            }
        }
        Ok(outcome.note)
    }

    /// Keeps a note past expiry.
    pub async fn keep(&self, id: String) -> StoreResult<Note> {
        let now = self.clock.now();
        self.repository
            .send(KeepNote { id, now })
            .await
            .map_err(unavailable)?
    }

    /// Keeps every expired note in one statement (the expiry review's "Keep all");
    /// replies with their ids.
    pub async fn keep_expired(&self) -> StoreResult<Vec<String>> {
        let now = self.clock.now();
        let ids = self
            .repository
            .send(KeepExpiredNotes { now })
            .await
            .map_err(unavailable)??;
        if !ids.is_empty() {
            tracing::info!(count = ids.len(), "expired notes kept");
        }
        Ok(ids)
    }

    /// Moves every expired note to the trash in one statement; replies with their ids
    /// (the page's Undo restores them).
    pub async fn trash_expired(&self) -> StoreResult<Vec<String>> {
        let now = self.clock.now();
        let ids = self
            .repository
            .send(TrashExpiredNotes { now })
            .await
            .map_err(unavailable)??;
        if !ids.is_empty() {
            tracing::info!(count = ids.len(), "expired notes moved to the trash");
            self.trashed(ids.clone());
        }
        Ok(ids)
    }

    /// Deletes a note in the trash for good, its text overwritten in the database
    /// files (`Store::delete_forever`); an active note is a conflict.
    pub async fn delete_forever(&self, id: String) -> StoreResult<()> {
        self.repository
            .send(DeleteForever {
                id,
                now: self.clock.now(),
            })
            .await
            .map_err(unavailable)?
    }

    /// Deletes every note in the trash for good; replies with how many.
    pub async fn empty_trash(&self) -> StoreResult<u64> {
        let count = self
            .repository
            .send(EmptyTrash {
                now: self.clock.now(),
            })
            .await
            .map_err(unavailable)??;
        if count > 0 {
            tracing::info!(count, "the trash was emptied");
        }
        Ok(count)
    }

    /// Deletes for good the notes in the trash longer than `trash.retention_days`.
    /// Nobody waits for it: a failure is logged, and the next hour tries again. While
    /// the wall clock's jump ahead waits to be confirmed (`crate::clock::confirmed`)
    /// it deletes nothing: the next hour looks again.
    pub async fn purge_old_trash(&self) {
        let Some(now) = self.clock.settled_now() else {
            tracing::info!(
                "the clock jumped and has not held yet; the trash is not purged this hour"
            );
            return;
        };
        let older_than = now - self.trash_retention;
        match self.repository.send(PurgeTrash { older_than, now }).await {
            Ok(Ok(0)) => {}
            Ok(Ok(purged)) => tracing::info!(purged, "old notes deleted from the trash"),
            Ok(Err(e)) => tracing::warn!(error = %e, "cannot purge the trash"),
            Err(e) => tracing::warn!(error = %e, "repository gone"),
        }
    }

    /// Compacts the change log to each note's newest change, of the changes older than
    /// [`COMPACT_AFTER`], one step a message (`Store::compact_changes_step`), so
    /// captures go between two steps. Nobody waits for it: a failure is logged, and the
    /// next hour goes on from the last step done. While the wall clock's jump waits to
    /// be confirmed it compacts nothing, as the purge.
    pub async fn compact_change_log(&self) {
        let Some(now) = self.clock.settled_now() else {
            return;
        };
        let before = now - COMPACT_AFTER;
        let mut removed = 0;
        loop {
            let step = CompactChanges {
                step: COMPACT_STEP,
                before,
            };
            match self.repository.send(step).await {
                Ok(Ok(step)) => {
                    removed += step.removed;
                    if step.done {
                        break;
                    }
                }
                Ok(Err(e)) => {
                    tracing::warn!(error = %e, "cannot compact the change log");
                    break;
                }
                Err(e) => {
                    tracing::warn!(error = %e, "repository gone");
                    break;
                }
            }
        }
        if removed > 0 {
            tracing::info!(
                removed,
                "the change log compacted to each note's newest change"
            );
        }
    }

    /// What follows notes moving to the trash: out of the AI queue at once, and one
    /// `note_trashed` each. (The repository announced the counts and the notes.)
    fn trashed(&self, ids: Vec<String>) {
        for _ in &ids {
            self.telemetry
                .do_send(Emit(UsageEvent::NoteTrashed(NoFields {})));
        }
        self.worker.do_send(Forget { note_ids: ids });
    }
}

/// Starts the hourly upkeep on the current arbiter: once now, then every
/// [`PURGE_EVERY`], the old trash purged and then the change log compacted. A task, not
/// an actor: it has no state and hears nothing. It ends with the System (its arbiter's
/// runtime). After a pause (a suspended laptop) the missed hours are not run one after
/// another: one round catches up with all of them. Started once the check at start has
/// found the file sound (`Services::start`): its writes would otherwise wait for the
/// check on the repository's thread, and every read queued behind them.
pub fn hourly_upkeep(inbox: Inbox) {
    actix_rt::spawn(async move {
        let mut every = tokio::time::interval(PURGE_EVERY);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            every.tick().await;
            inbox.purge_old_trash().await;
            inbox.compact_change_log().await;
        }
    });
}
