//! `RepositoryActor`: the one owner of the writing SQLite connection, and its messages.
//!
//! It is also the one place that announces the counts the banners and the tray show
//! (`CountsChanged`, and `FailedCountChanged` when the failed count moved): right after
//! each write that can change them, so no caller can forget to and none needs another
//! round trip to count. [`counts_after`] says what a write changed; the two hot writes
//! (a capture, a saved answer) move the pending count by one without counting, the
//! others count again what they may have moved.
//!
//! The live feed follows the change log (`Store::write` records every write to a note;
//! `storage/store/changes.rs`): after each write the actor reads the log from the last
//! change it announced (`follow_log`) and tells the hub of the notes it names, as the
//! write's [`Live`] says: `NoteChanged` with each note as stored (a capture, an edit,
//! trash, an answer saved, a note given up, …), or `NotesChanged` with how many when
//! many moved at once (a retry-all, an import, the trash emptied); nothing when the log
//! gained nothing. The worker's reasons (`JobFailed`) only the worker can say.
//!
//! A tag rename is the one write done in slices (issue #29 point 6): it may touch tens
//! of thousands of notes, so it must not hold the one thread while it does. `RenameTag`
//! checks and records the rename and replies at once (a refusal is its reply); the
//! notes are then renamed by `ContinueTagRename` messages the actor sends itself, one
//! slice each (`Store::rename_tag_slice`, its own transaction). Each goes to the back
//! of the mailbox, so whatever arrived meanwhile (a capture) is handled between two
//! slices and waits one slice at most. The asker hears the result on the rename's
//! `done` channel. A rename a crash cut short is finished when the actor starts again
//! (`resume_tag_renames`): the store recorded how far it got.
//!
//! The vector index (`Store::nearest_to_vector`, issue #26 point 5) is built the same
//! way when the actor starts: `IndexVectors` slices sent to itself, each reading
//! `INDEX_SLICE` vectors, so a capture at start waits one slice at most; until the last
//! one, related notes are found by the exact search.
//!
//! It runs on a one-thread `SyncArbiter`: rusqlite calls block (an fsync per commit),
//! and on an async arbiter they would freeze every actor sharing that thread, timers
//! included (docs/PLATFORM.md, "actix: a blocking call freezes its arbiter"). One thread also serialises all writes, so SQLite
//! never sees two writers. Each message maps to one [`Store`] method; the SQL lives
//! there.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use actix::{Actor, Addr, Handler, SyncArbiter, SyncContext};
use chrono::{DateTime, Utc};

use super::handling;
use super::hub::Hub;
use super::mailbox::Mailbox;
use crate::domain::{AiStatus, Note};
use crate::events::{CountsChanged, FailedCountChanged, NoteChanged, NotesChanged};
use crate::reminders::due::Pending;
use crate::storage::{
    Changed, Compacted, Edited, EmbeddingBacklog, Imported, IndexProgress, Job, NoteCounts,
    Related, RenameProgress, ReviewFacts, SearchHit, Store, StoreError, StoreResult, TagCount,
    BACKLOG_WALK, INDEX_SLICE, RENAME_SLICE_NOTES,
};

mod announce;
mod group_commit;
mod messages;

pub use announce::{
    captured_in_log, counts_after, counts_of_group, notes_to_announce, CountsChange, GroupCounts,
    Live, NotesChange,
};
pub use group_commit::{Captures, CommitCaptures, Queued};
pub use messages::*;

/// The actor. `store` is `None` only if reopening the database after a restart of the
/// actor failed; every message then answers `StoreError::Unavailable`.
pub struct RepositoryActor {
    store: Option<Store>,
    hub: Mailbox<Hub>,
    /// The counts last announced (`None` before the first).
    counts: Option<NoteCounts>,
    /// The newest change of the log the live feed has followed.
    announced: i64,
}

impl Actor for RepositoryActor {
    type Context = SyncContext<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        tracing::info!("repository started");
        // A crash between a recording's file and its note's row leaves the file alone.
        if let Some(store) = self.store.as_ref() {
            sweep_recordings(store);
        }
        self.resume_tag_renames(ctx);
        Mailbox::from(ctx.address()).do_send(IndexVectors {
            began: std::time::Instant::now(),
        });
    }
}

impl RepositoryActor {
    /// Starts the actor on its own thread with an already opened (and migrated) store.
    ///
    /// The store is opened by the caller so that an unusable database stops start-up
    /// with its error. Should the arbiter ever call the factory again (it does when the
    /// actor stops), the database is reopened from `path`.
    pub fn start(store: Store, path: PathBuf, hub: Mailbox<Hub>) -> Addr<Self> {
        let integrity = store.integrity();
        // A store opened again reads the rule through the same handle as the routes.
        let expiry = store.expiry();
        let first = Arc::new(Mutex::new(Some(store)));
        SyncArbiter::start(1, move || {
            let taken = first.lock().unwrap_or_else(|p| p.into_inner()).take();
            let reopened = || {
                let mut store = Store::open_checked(&path, expiry.days(), integrity.clone())?;
                store.share_expiry(expiry.clone());
                Ok::<_, crate::storage::store::StoreError>(store)
            };
            let store = taken.or_else(|| match reopened() {
                Ok(store) => Some(store),
                Err(e) => {
                    tracing::error!(error = %e, "cannot reopen the database");
                    None
                }
            });
            // What was written before the actor started is no news to any page.
            let announced = match store.as_ref().map(Store::latest_change) {
                Some(Ok(latest)) => latest,
                Some(Err(e)) => {
                    tracing::warn!(error = %e, "cannot read the change log");
                    0
                }
                None => 0,
            };
            RepositoryActor {
                store,
                hub: hub.clone(),
                counts: None,
                announced,
            }
        })
    }

    /// Announces the counts after a write that made `change`, when they moved.
    fn announce(&mut self, change: CountsChange, now: DateTime<Utc>) {
        let Some(store) = self.store.as_ref() else {
            return;
        };
        let counted = match counts_after(self.counts, change) {
            Some(counts) => Ok(counts),
            None => match (change, self.counts) {
                (CountsChange::PendingAndFailed, Some(last)) => store
                    .count_pending()
                    .and_then(|pending| Ok((pending, store.count_failed()?)))
                    .map(|(pending, failed)| NoteCounts {
                        pending,
                        failed,
                        ..last
                    }),
                _ => store.counts(now),
            },
        };
        match counted {
            Ok(counts) => self.publish(counts),
            Err(e) => {
                // The write itself went through; the next one announces again.
                tracing::warn!(error = %e, "cannot count the notes");
                self.counts = None;
            }
        }
    }

    /// Reads the change log from the last change announced and tells the hub of the
    /// notes it names, as `live` says (at most `limit` changes: a capture of a group
    /// announces its notes one at a time, each after its counts). A log that cannot be
    /// read is skipped: the write stands, and the page hears of the next one.
    fn follow_log(&mut self, live: Live, limit: usize) {
        let Some(store) = self.store.as_ref() else {
            return;
        };
        let told = match live {
            Live::Many | Live::Quiet => {
                store
                    .notes_changed_after(self.announced)
                    .map(|(notes, last)| {
                        let told = matches!(live, Live::Many)
                            .then(|| NotesChange::many(notes as usize))
                            .flatten();
                        (told.into_iter().collect::<Vec<_>>(), last)
                    })
            }
            Live::Each => store
                .changes_after(self.announced, limit)
                .and_then(|changes| {
                    let last = changes.last().map_or(self.announced, |c| c.seq);
                    let mut told = Vec::new();
                    for id in notes_to_announce(&changes) {
                        match store.get(id) {
                            Ok(note) => told.push(NotesChange::one(&note)),
                            Err(StoreError::NotFound(_)) => {}
                            Err(e) => return Err(e),
                        }
                    }
                    Ok((told, last))
                }),
        };
        match told {
            Ok((told, last)) => {
                self.announced = last;
                for change in told {
                    self.tell(Some(change));
                }
            }
            Err(e) => tracing::warn!(error = %e, "cannot read the change log"),
        }
    }

    /// Announces the notes a write changed, if any.
    fn tell(&self, change: Option<NotesChange>) {
        match change {
            Some(NotesChange::One(note)) => self.hub.do_send(NoteChanged { note: *note }),
            Some(NotesChange::Many(count)) => self.hub.do_send(NotesChanged { count }),
            None => {}
        }
    }

    /// Announces `counts` when they differ from the last announced.
    fn publish(&mut self, counts: NoteCounts) {
        if self.counts == Some(counts) {
            return;
        }
        if self.counts.map(|last| last.failed) != Some(counts.failed) {
            self.hub.do_send(FailedCountChanged {
                count: counts.failed,
            });
        }
        self.counts = Some(counts);
        self.hub.do_send(CountsChanged { counts });
    }
}

/// Implements `Handler<M>` by running one expression against the store, with the
/// mailbox log line every actor writes.
macro_rules! handle_with_store {
    ($message:ident => $result:ty, |$store:ident, $msg:ident| $body:expr) => {
        impl actix::Handler<$message> for RepositoryActor {
            type Result = StoreResult<$result>;

            fn handle(&mut self, $msg: $message, _: &mut SyncContext<Self>) -> Self::Result {
                let mut handled = handling!(stringify!($message));
                let result = match self.store.as_mut() {
                    Some($store) => $body,
                    None => Err(StoreError::Unavailable("the repository is not open".into())),
                };
                handled.succeeded(result.is_ok());
                result
            }
        }
    };
}

/// [`handle_with_store!`] for a write: once it succeeded, `counts` (given its result)
/// says what it did to the counts, which are then announced; then the notes the change
/// log gained are, as `live` says. Both read what was written.
macro_rules! handle_write {
    ($message:ident => $result:ty, counts: $counts:expr, live: $live:expr, |$store:ident, $msg:ident| $body:expr) => {
        impl actix::Handler<$message> for RepositoryActor {
            type Result = StoreResult<$result>;

            fn handle(&mut self, $msg: $message, _: &mut SyncContext<Self>) -> Self::Result {
                let mut handled = handling!(stringify!($message));
                let now = $msg.now;
                let result = match self.store.as_mut() {
                    Some($store) => $body,
                    None => Err(StoreError::Unavailable("the repository is not open".into())),
                };
                handled.succeeded(result.is_ok());
                if let Ok(written) = &result {
                    let counts: fn(&$result) -> Option<CountsChange> = $counts;
                    if let Some(change) = counts(written) {
                        self.announce(change, now);
                    }
                }
                self.follow_log($live, usize::MAX);
                result
            }
        }
    };
    // A write that is in no count (a vector, notes in the trash).
    ($message:ident => $result:ty, live: $live:expr, |$store:ident, $msg:ident| $body:expr) => {
        handle_write!($message => $result, counts: |_| None, live: $live, |$store, $msg| $body);
    };
}

/// [`handle_write!`] for the writes that announce the counts only.
macro_rules! handle_and_announce {
    ($message:ident => $result:ty, $change:expr, |$store:ident, $msg:ident| $body:expr) => {
        handle_write!($message => $result, counts: $change, live: Live::Quiet, |$store, $msg| $body);
    };
}

/// Captures in groups (`group_commit.rs`).
impl actix::Handler<CommitCaptures> for RepositoryActor {
    type Result = ();

    fn handle(&mut self, mut msg: CommitCaptures, _: &mut SyncContext<Self>) {
        let mut handled = handling!("CommitCaptures");
        let stored = self.commit_captures(&mut msg);
        handled.succeeded(stored);
    }
}
handle_write!(CaptureNote => Note,
    counts: |_| Some(CountsChange::OnePending),
    live: Live::Each,
    |store, msg| store.capture(&msg.body, msg.now));
handle_with_store!(GetNote => Note, |store, msg| store.get(&msg.id));
handle_with_store!(FindIdsByPrefix => Vec<String>, |store, msg| {
    store.ids_with_prefix(&msg.prefix, msg.most)
});
handle_with_store!(ShortenIds => Vec<String>, |store, msg| store.short_ids(&msg.ids));
handle_with_store!(ListNotes => Vec<Note>, |store, msg| store.list(&msg.filter, msg.now));
handle_with_store!(SearchNotes => Vec<SearchHit>, |store, msg| {
    store.search(&msg.query, &msg.filter, msg.now)
});
handle_with_store!(SearchByMeaning => Vec<(Note, f32)>, |store, msg| {
    store.search_by_meaning(&msg.model, &msg.vector, &msg.filter, msg.now, msg.k, msg.floor)
});
handle_with_store!(SearchEachWord => Vec<Vec<SearchHit>>, |store, msg| {
    store.search_each(&msg.queries, &msg.filter, msg.now)
});
handle_with_store!(CountFailed => u64, |store, _msg| store.count_failed());
/// A status read counts everything anyway: what it found is announced as it is, not
/// counted a second time.
impl actix::Handler<GetCounts> for RepositoryActor {
    type Result = StoreResult<NoteCounts>;

    fn handle(&mut self, msg: GetCounts, _: &mut SyncContext<Self>) -> Self::Result {
        let mut handled = handling!("GetCounts");
        let result = match self.store.as_ref() {
            Some(store) => store.counts(msg.now),
            None => Err(StoreError::Unavailable("the repository is not open".into())),
        };
        handled.succeeded(result.is_ok());
        if let Ok(counts) = &result {
            self.publish(*counts);
        }
        result
    }
}
// Zero requeued is "nothing happened": nothing to announce.
handle_write!(RetryAllFailed => Vec<String>,
    counts: |ids| (!ids.is_empty()).then_some(CountsChange::PendingAndFailed),
    live: Live::Many,
    |store, msg| store.retry_all_failed(msg.now));
handle_and_announce!(RequeueModelMissingFailures => Vec<String>,
    |ids| (!ids.is_empty()).then_some(CountsChange::PendingAndFailed),
    |store, msg| store.requeue_model_missing_failures(msg.now));
handle_with_store!(RecordSlowTimeout => (), |store, msg| {
    store.record_slow_timeout(&msg.note_id, msg.next_run_at, msg.slow_timeouts, &msg.last_error)
});
handle_with_store!(SetNextRunAt => (), |store, msg| {
    store.set_next_run_at(&msg.note_id, msg.at, &msg.last_error)
});
handle_with_store!(IncrementJobAttempt => u32, |store, msg| {
    store.increment_job_attempt(&msg.note_id, msg.next_run_at, &msg.last_error)
});
handle_write!(MarkAiFailed => Note,
    counts: |_| Some(CountsChange::PendingAndFailed),
    live: Live::Each,
    |store, msg| store.mark_ai_failed(&msg.note_id, &msg.error, msg.now));
// A note enriched in the trash was not counted as pending.
handle_write!(SaveEnrichment => Note,
    counts: |note| note.deleted_at.is_none().then_some(CountsChange::OneDone),
    live: Live::Each,
    |store, msg| store.save_enrichment(&msg.note_id, &msg.body_read, &msg.enrichment, msg.now));
// A body edit sends a done or failed note back to pending.
handle_write!(EditNote => Edited,
    counts: |e| (e.queued_afresh && e.was != AiStatus::Pending).then_some(CountsChange::All),
    live: Live::Each,
    |store, msg| store.edit(&msg.id, &msg.edit, msg.now));
// A reminder is in no count.
handle_write!(SetReminder => Note,
    live: Live::Each,
    |store, msg| store.set_reminder(&msg.id, msg.change, msg.now));
handle_with_store!(ListReminders => Vec<Note>, |store, msg| {
    store.reminders_until(msg.until, msg.limit)
});
handle_with_store!(CountDue => u64, |store, msg| store.due_count(msg.until));
// From the `SearchIndexer`, which does not wait for the reply: a failure is logged
// here, and the next search writes what is left.
handle_with_store!(IndexPending => u64, |store, _msg| {
    store.index_pending().inspect_err(|e| {
        tracing::warn!(error = %e, "cannot write the search index; the next search will");
    })
});
handle_with_store!(GetPendingReminders => Vec<Pending>, |store, msg| {
    store.pending_reminders(msg.now)
});
handle_with_store!(MarkRemindersShown => (), |store, msg| {
    store.mark_reminders_shown(&msg.shown)
});
handle_with_store!(GetReviewFacts => ReviewFacts, |store, msg| {
    store.review_facts(msg.due_until, msg.from, msg.to)
});
handle_with_store!(MarkReviewShown => (), |store, msg| store.mark_review_shown(&msg.day));
handle_with_store!(ListUnopened => Vec<Note>, |store, msg| {
    store.unopened_between(msg.from, msg.to)
});
// Opening is not the note's data: no change logged, nothing announced.
handle_with_store!(MarkOpened => Note, |store, msg| store.mark_opened(&msg.id, msg.now));
handle_write!(ImportNotes => Imported,
    counts: |imported| (!imported.notes.is_empty()).then_some(CountsChange::All),
    live: Live::Many,
    |store, msg| store.import(&msg.notes, msg.now));
handle_with_store!(ListTags => Vec<TagCount>, |store, msg| store.tags(msg.limit));
handle_with_store!(GetPendingBodies => Vec<(String, String)>, |store, msg| store.pending_bodies(&msg.ids));
handle_with_store!(GetJob => Option<Job>, |store, msg| store.job(&msg.note_id));
handle_with_store!(GetEmbeddingBacklog => EmbeddingBacklog, |store, msg| {
    match msg.only.as_deref() {
        Some(only) => store.embedding_backlog(&msg.model, msg.limit, &msg.skip, Some(only)),
        None => store.embedding_backlog_slice(
            &msg.model,
            msg.limit,
            &msg.skip,
            msg.before.as_deref(),
            BACKLOG_WALK,
        ),
    }
});
// A vector is in no count and changes nothing a note shows: nothing to announce.
handle_write!(SaveVectors => usize, live: Live::Quiet, |store, msg| {
    store.save_vectors(&msg.model, &msg.vectors, msg.now)
});
handle_with_store!(GetRelated => Related, |store, msg| {
    store.related(&msg.id, msg.limit, msg.floor)
});
handle_with_store!(GetVectorSpread => Option<crate::api::status::VectorSpread>, |store, _msg| {
    store.newest_vector_spread()
});
handle_write!(TrashNote => Changed,
    counts: |c| c.changed.then_some(CountsChange::All),
    live: Live::Each,
    |store, msg| store.trash(&msg.id, msg.now));
handle_write!(RestoreNote => Changed,
    counts: |c| c.changed.then_some(CountsChange::All),
    live: Live::Each,
    |store, msg| store.restore(&msg.id, msg.now));
handle_write!(TrashExpiredNotes => Vec<String>,
    counts: |ids| (!ids.is_empty()).then_some(CountsChange::All),
    live: Live::Many,
    |store, msg| store.trash_expired(msg.now));
// Every note's expiry moves with the answer: the counts, and the lists as they are read.
handle_write!(ChooseExpiry => (),
    counts: |_| Some(CountsChange::All),
    live: Live::Quiet,
    |store, msg| store.choose_expiry(msg.on, msg.now));
handle_with_store!(AskAboutExpiry => bool, |store, msg| {
    let choice = store.expiry().choice();
    // Answered (or decided by the settings): nothing to read, on every status call.
    if choice != crate::expiry::ExpiryChoice::Ask {
        return Ok(false);
    }
    let oldest = store.oldest_written_here()?;
    Ok(crate::expiry::should_ask(choice, oldest, msg.now))
});
handle_write!(KeepExpiredNotes => Vec<String>,
    counts: |ids| (!ids.is_empty()).then_some(CountsChange::All),
    live: Live::Many,
    |store, msg| store.keep_expired(msg.now));
handle_write!(KeepNote => Note,
    counts: |_| Some(CountsChange::All),
    live: Live::Each,
    |store, msg| store.keep(&msg.id, msg.now));
// Hourly: purged notes were not counted, but notes have aged past their expiry since.
// The live page is not told: notes a month in the trash are not on it.
handle_and_announce!(PurgeTrash => u64, |_| Some(CountsChange::All), |store, msg| {
    swept(store, |store| store.purge_trash(msg.older_than, msg.now))
});
handle_write!(RequestEnrichment => (Note, AiStatus),
    counts: |(_, was)| (*was != AiStatus::Pending).then_some(CountsChange::All),
    live: Live::Each,
    |store, msg| store.request_enrichment(&msg.id, msg.now));
// Notes in the trash are in no count: deleting them changes none. The note is gone, so
// the page is told to reload rather than sent it.
handle_write!(DeleteForever => (),
    live: Live::Many,
    |store, msg| swept(store, |store| store.delete_forever(&msg.id, msg.now)));
handle_write!(EmptyTrash => u64,
    live: Live::Many,
    |store, msg| swept(store, |store| store.empty_trash(msg.now)));
// A voice note is counted pending as a typed one is.
handle_write!(CaptureVoice => Note,
    counts: |_| Some(CountsChange::OnePending),
    live: Live::Each,
    |store, msg| store.capture_voice(&msg.audio, msg.format, msg.now));
handle_with_store!(GetVoiceJobs => Vec<Job>, |store, _msg| store.voice_jobs());
handle_with_store!(GetRecording => Option<crate::storage::Recording>, |store, msg| {
    store.waiting_recording(&msg.note_id)
});
// Its words in, the note is still pending: no count moves.
handle_write!(SaveTranscript => Note,
    live: Live::Each,
    |store, msg| store.save_transcript(&msg.note_id, &msg.text, msg.keep_audio, msg.now));

/// `delete` (notes deleted for good), then the recordings no note keeps any more
/// swept away: the notes' rows went with them, their files follow here.
fn swept<T>(
    store: &mut Store,
    delete: impl FnOnce(&mut Store) -> StoreResult<T>,
) -> StoreResult<T> {
    let deleted = delete(store)?;
    sweep_recordings(store);
    Ok(deleted)
}

/// Removes the recordings no note keeps; a failure is logged (the next sweep tries
/// again), never the deletion's.
fn sweep_recordings(store: &Store) {
    match store.sweep_recordings() {
        Ok(0) => {}
        Ok(removed) => tracing::info!(removed, "recordings of notes deleted for good removed"),
        Err(e) => tracing::warn!(error = %e, "cannot remove the recordings of deleted notes"),
    }
}
handle_with_store!(Checkpoint => (), |store, _msg| store.checkpoint());
handle_with_store!(GetChanges => Vec<crate::api::changes::NoteChange>, |store, msg| {
    store.changes_after(msg.since, msg.limit)
});
// Nothing to announce: every note keeps its newest change, and what follows the log has
// read the older ones already.
handle_with_store!(CompactChanges => Compacted, |store, msg| {
    store.compact_changes_step(msg.step, msg.before)
});

impl RepositoryActor {
    /// Finishes the renames a crash cut short (each one's `now` is the restart's: the
    /// notes it changes are changed now).
    fn resume_tag_renames(&mut self, ctx: &mut SyncContext<Self>) {
        let Some(store) = self.store.as_ref() else {
            return;
        };
        match store.unfinished_tag_renames() {
            Ok(renames) => {
                for rename in renames {
                    tracing::info!(from = %rename.from, to = %rename.to, done = rename.notes,
                        "finishing a tag rename cut short");
                    Mailbox::from(ctx.address()).do_send(ContinueTagRename {
                        rename,
                        now: Utc::now(),
                        done: None,
                    });
                }
            }
            Err(e) => tracing::warn!(error = %e, "cannot read the tag renames under way"),
        }
    }
}

impl Handler<IndexVectors> for RepositoryActor {
    type Result = ();

    fn handle(&mut self, msg: IndexVectors, ctx: &mut SyncContext<Self>) {
        let mut handled = handling!("IndexVectors");
        let progress = match self.store.as_mut() {
            Some(store) => store
                .index_vectors(INDEX_SLICE)
                .map(|progress| (progress, store.index_bytes())),
            None => Err(StoreError::Unavailable("the repository is not open".into())),
        };
        handled.succeeded(progress.is_ok());
        match progress {
            Ok((IndexProgress::Going { .. }, _)) => {
                Mailbox::from(ctx.address()).do_send(msg);
            }
            Ok((IndexProgress::Done { indexed }, bytes)) => tracing::info!(
                notes = indexed,
                kib = bytes / 1024,
                ms = msg.began.elapsed().as_millis() as u64,
                "the vector index is built"
            ),
            // Related notes go on by the exact search (slower, never wrong).
            Err(e) => tracing::warn!(error = %e, "cannot build the vector index"),
        }
    }
}

impl Handler<RenameTag> for RepositoryActor {
    type Result = StoreResult<()>;

    fn handle(&mut self, msg: RenameTag, ctx: &mut SyncContext<Self>) -> Self::Result {
        let mut handled = handling!("RenameTag");
        let begun = match self.store.as_mut() {
            Some(store) => store.begin_tag_rename(&msg.from, &msg.to),
            None => Err(StoreError::Unavailable("the repository is not open".into())),
        };
        handled.succeeded(begun.is_ok());
        let rename = begun?;
        Mailbox::from(ctx.address()).do_send(ContinueTagRename {
            rename,
            now: msg.now,
            done: Some(msg.done),
        });
        Ok(())
    }
}

impl Handler<ContinueTagRename> for RepositoryActor {
    type Result = ();

    fn handle(&mut self, msg: ContinueTagRename, ctx: &mut SyncContext<Self>) {
        let mut handled = handling!("ContinueTagRename");
        let ContinueTagRename { rename, now, done } = msg;
        let from = rename.from.clone();
        let done_before = rename.notes;
        let sliced = match self.store.as_mut() {
            Some(store) => store.rename_tag_slice(rename, RENAME_SLICE_NOTES, now),
            None => Err(StoreError::Unavailable("the repository is not open".into())),
        };
        handled.succeeded(sliced.is_ok());
        // The page hears of a rename once, when it is done (below), not slice by slice.
        self.follow_log(Live::Quiet, usize::MAX);
        let ended = match sliced {
            Ok(RenameProgress::Going(rename)) => {
                Mailbox::from(ctx.address()).do_send(ContinueTagRename { rename, now, done });
                return;
            }
            Ok(RenameProgress::Done(renamed)) => {
                // Tags are in no count; the page reloads its list once.
                self.tell(NotesChange::many(renamed.notes as usize));
                Ok(renamed)
            }
            Err(e) => {
                // The slices done stay (each was whole); the record goes, so the same
                // rename asked again is not refused as under way and finishes the rest.
                tracing::warn!(error = %e, tag = %from, "a tag rename stopped part way");
                self.tell(NotesChange::many(done_before as usize));
                if let Some(store) = self.store.as_mut() {
                    if let Err(e) = store.abandon_tag_rename(&from) {
                        tracing::warn!(error = %e, tag = %from, "cannot drop the rename's record; it resumes at the next start");
                    }
                }
                Err(e)
            }
        };
        // The asker may have gone (a closed connection): the rename is done anyway.
        done.map(|done| done.send(ended));
    }
}
