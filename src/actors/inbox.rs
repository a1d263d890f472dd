//! `InboxActor`: the inbox use cases (capture, retry-all, the trash), and their messages.
//!
//! The HTTP API and the tray send the same typed messages here; each use case is a
//! short sequence over the other actors:
//! - `Capture`: store the note and its job (durable) → `note_captured` → enqueue;
//! - `RetryAllFailed` (docs/DESIGN.md, "Retry-all"): requeue every failed note in one transaction → enqueue
//!   each → `ai_retry_manual {failedCount}` and `FailedCountChanged`, only when at
//!   least one note was requeued (zero is the "nothing happened" sentinel) → resume
//!   the worker at once (a manual retry means "try now");
//! - `Enrich`: one note's AI asked for again (done, failed or pending) → its job at
//!   the front of the queue → `ai_enrich_requested {from}` → resume the worker at once;
//! - `Edit`: a note's body, title or tags changed by hand → `note_edited {body, title,
//!   tags}`; a changed body queues the note afresh, as a capture does;
//! - `RenameTagEverywhere`: a tag renamed (or merged into another) on every note →
//!   `tag_renamed {merged}` → the live page reloads;
//! - `Import`: checked notes brought in, in one transaction (ids that exist skipped) →
//!   the pending ones enqueued → `notes_imported {count}` → the live page reloads;
//! - `TrashExpired`: every expired note to the trash in one statement;
//! - `DeleteNote`, `EmptyTheTrash`: notes in the trash deleted for good, their text
//!   overwritten in the database files (`Store::delete_forever`);
//! - an hourly timer purges notes trashed longer than `trash.retention_days`;
//! - `Trash`, `Restore`, `Keep`: the notes' lifecycle, with `note_trashed` and
//!   `note_restored` when something changed; a restored pending note is queued again
//!   with its stored attempts.

use actix::prelude::*;

use super::ai_worker::{AiWorkerActor, Enqueue, Forget, ResumeNow, TrackJob};
use super::handling;
use super::hub::Hub;
use super::mailbox::{self, Mailbox};
use super::repository::{
    CaptureNote, DeleteForever, EditNote, EmptyTrash, ImportNotes, KeepNote, PurgeTrash, RenameTag,
    RepositoryActor, RequestEnrichment, RequeueAllFailed, RestoreNote, TrashExpiredNotes,
    TrashNote,
};
use super::telemetry::{Emit, TelemetryActor};
use crate::clock::SharedClock;
use crate::domain::{AiStatus, Note, NoteBody, NoteEdit};
use crate::events::{NoteChanged, NotesChanged};
use crate::storage::{Imported, StoreError, StoreResult, TagRenamed};
use crate::telemetry::events::{
    AiEnrichRequested, AiRetryManual, EnrichFrom, NoFields, NoteEdited, NotesImported,
    TagRenamed as TagRenamedEvent, UsageEvent,
};

/// Captures a note: durable when the reply arrives.
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<Note>")]
pub struct Capture {
    pub body: NoteBody,
}

/// Moves a note to the trash (`note_trashed` when it was not there yet).
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<Note>")]
pub struct Trash {
    pub id: String,
}

/// Takes a note out of the trash (`note_restored`); a pending one is queued again.
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<Note>")]
pub struct Restore {
    pub id: String,
}

/// Keeps a note past expiry.
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<Note>")]
pub struct Keep {
    pub id: String,
}

/// Moves every expired note to the trash; replies with their ids.
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<Vec<String>>")]
pub struct TrashExpired;

/// Asks for one note's AI again; replies with the note, now pending.
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<Note>")]
pub struct Enrich {
    pub id: String,
}

/// Edits a note's body, title or tags; replies with the note as it is now.
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<Note>")]
pub struct Edit {
    pub id: String,
    pub edit: NoteEdit,
}

/// Renames a tag on every note (merging it into `to` when that exists).
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<TagRenamed>")]
pub struct RenameTagEverywhere {
    pub from: String,
    pub to: String,
}

/// Brings checked notes in (`crate::export::ImportedNote::validate`).
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<Imported>")]
pub struct Import {
    pub notes: Vec<Note>,
}

/// Deletes a note in the trash for good (an active note is a conflict).
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<()>")]
pub struct DeleteNote {
    pub id: String,
}

/// Deletes every note in the trash for good; replies with how many.
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<u64>")]
pub struct EmptyTheTrash;

/// Deletes for good the notes in the trash longer than `trash.retention_days`
/// (sent by the actor's own hourly timer).
#[derive(Debug, Message)]
#[rtype(result = "()")]
struct PurgeOldTrash;

/// How often the trash is checked for notes past their retention. Hourly: 24 wake-ups
/// a day is nothing, and a note lingers at most an hour past its time.
const PURGE_EVERY: std::time::Duration = std::time::Duration::from_secs(3600);

/// Retries every failed note; replies with how many were requeued.
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<u64>")]
pub struct RetryAllFailed;

/// The actors a use case talks to; cloned into each handler's future.
#[derive(Clone)]
struct Collaborators {
    repository: Mailbox<RepositoryActor>,
    worker: Mailbox<AiWorkerActor>,
    telemetry: Mailbox<TelemetryActor>,
    hub: Mailbox<Hub>,
}

impl Collaborators {
    /// What follows notes moving to the trash: out of the AI queue at once, and one
    /// `note_trashed` each. (The repository announced the counts.)
    fn trashed(&self, ids: Vec<String>) {
        for _ in &ids {
            self.telemetry
                .do_send(Emit(UsageEvent::NoteTrashed(NoFields {})));
        }
        self.worker.do_send(Forget { note_ids: ids });
    }
}

pub struct InboxActor {
    with: Collaborators,
    clock: SharedClock,
    trash_retention: chrono::Duration,
}

impl InboxActor {
    pub fn new(
        repository: Mailbox<RepositoryActor>,
        worker: Mailbox<AiWorkerActor>,
        telemetry: Mailbox<TelemetryActor>,
        hub: Mailbox<Hub>,
        clock: SharedClock,
        trash_retention_days: u32,
    ) -> Self {
        InboxActor {
            with: Collaborators {
                repository,
                worker,
                telemetry,
                hub,
            },
            clock,
            trash_retention: chrono::Duration::days(i64::from(trash_retention_days)),
        }
    }
}

impl Actor for InboxActor {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Context<Self>) {
        mailbox::notify(ctx, PurgeOldTrash);
        ctx.run_interval(PURGE_EVERY, |_, ctx| mailbox::notify(ctx, PurgeOldTrash));
    }
}

impl Handler<PurgeOldTrash> for InboxActor {
    type Result = ResponseFuture<()>;

    fn handle(&mut self, _: PurgeOldTrash, _: &mut Context<Self>) -> Self::Result {
        let _handled = handling!("PurgeOldTrash");
        let repository = self.with.repository.clone();
        let now = self.clock.now();
        let older_than = now - self.trash_retention;
        Box::pin(async move {
            match repository.send(PurgeTrash { older_than, now }).await {
                Ok(Ok(0)) => {}
                Ok(Ok(purged)) => tracing::info!(purged, "old notes deleted from the trash"),
                Ok(Err(e)) => tracing::warn!(error = %e, "cannot purge the trash"),
                Err(e) => tracing::warn!(error = %e, "repository gone"),
            }
        })
    }
}

fn mailbox(e: MailboxError) -> StoreError {
    StoreError::Unavailable(format!("the repository is not running ({e})"))
}

impl Handler<Capture> for InboxActor {
    type Result = ResponseFuture<StoreResult<Note>>;

    fn handle(&mut self, msg: Capture, _: &mut Context<Self>) -> Self::Result {
        let _handled = handling!("Capture");
        let Collaborators {
            repository,
            worker,
            telemetry,
            hub,
        } = self.with.clone();
        let now = self.clock.now();
        Box::pin(async move {
            let note = repository
                .send(CaptureNote {
                    body: msg.body,
                    now,
                })
                .await
                .map_err(mailbox)??;
            telemetry.do_send(Emit(UsageEvent::NoteCaptured(NoFields {})));
            worker.do_send(Enqueue {
                note_ids: vec![note.id.clone()],
                at: now,
            });
            hub.do_send(NoteChanged { note: note.clone() });
            Ok(note)
        })
    }
}

impl Handler<RetryAllFailed> for InboxActor {
    type Result = ResponseFuture<StoreResult<u64>>;

    fn handle(&mut self, _: RetryAllFailed, _: &mut Context<Self>) -> Self::Result {
        let _handled = handling!("RetryAllFailed");
        let with = self.with.clone();
        let now = self.clock.now();
        Box::pin(async move {
            let ids = with
                .repository
                .send(RequeueAllFailed { now })
                .await
                .map_err(mailbox)??;
            let count = ids.len() as u64;
            if count == 0 {
                return Ok(0);
            }
            // One reload for the live page, not a fetch per note.
            with.hub.do_send(NotesChanged { count });
            with.worker.do_send(Enqueue {
                note_ids: ids,
                at: now,
            });
            with.worker.do_send(ResumeNow {
                why: "manual retry of failed notes",
            });
            with.telemetry
                .do_send(Emit(UsageEvent::AiRetryManual(AiRetryManual {
                    failed_count: count,
                })));
            tracing::info!(count, "failed notes requeued");
            Ok(count)
        })
    }
}

impl Handler<Trash> for InboxActor {
    type Result = ResponseFuture<StoreResult<Note>>;

    fn handle(&mut self, msg: Trash, _: &mut Context<Self>) -> Self::Result {
        let _handled = handling!("Trash");
        let with = self.with.clone();
        let now = self.clock.now();
        Box::pin(async move {
            let outcome = with
                .repository
                .send(TrashNote { id: msg.id, now })
                .await
                .map_err(mailbox)??;
            if outcome.changed {
                with.trashed(vec![outcome.note.id.clone()]);
                with.hub.do_send(NoteChanged {
                    note: outcome.note.clone(),
                });
            }
            Ok(outcome.note)
        })
    }
}

impl Handler<Restore> for InboxActor {
    type Result = ResponseFuture<StoreResult<Note>>;

    fn handle(&mut self, msg: Restore, _: &mut Context<Self>) -> Self::Result {
        let _handled = handling!("Restore");
        let Collaborators {
            repository,
            worker,
            telemetry,
            hub,
        } = self.with.clone();
        let now = self.clock.now();
        Box::pin(async move {
            let outcome = repository
                .send(RestoreNote { id: msg.id, now })
                .await
                .map_err(mailbox)??;
            if outcome.changed {
                telemetry.do_send(Emit(UsageEvent::NoteRestored(NoFields {})));
                hub.do_send(NoteChanged {
                    note: outcome.note.clone(),
                });
                if outcome.note.ai_status == AiStatus::Pending {
                    worker.do_send(TrackJob {
                        note_id: outcome.note.id.clone(),
                    });
                }
            }
            Ok(outcome.note)
        })
    }
}

impl Handler<Keep> for InboxActor {
    type Result = ResponseFuture<StoreResult<Note>>;

    fn handle(&mut self, msg: Keep, _: &mut Context<Self>) -> Self::Result {
        let _handled = handling!("Keep");
        let Collaborators {
            repository, hub, ..
        } = self.with.clone();
        let now = self.clock.now();
        Box::pin(async move {
            let note = repository
                .send(KeepNote { id: msg.id, now })
                .await
                .map_err(mailbox)??;
            hub.do_send(NoteChanged { note: note.clone() });
            Ok(note)
        })
    }
}

impl Handler<Enrich> for InboxActor {
    type Result = ResponseFuture<StoreResult<Note>>;

    fn handle(&mut self, msg: Enrich, _: &mut Context<Self>) -> Self::Result {
        let _handled = handling!("Enrich");
        let with = self.with.clone();
        let now = self.clock.now();
        Box::pin(async move {
            let (note, was) = with
                .repository
                .send(RequestEnrichment { id: msg.id, now })
                .await
                .map_err(mailbox)??;
            // The job as stored now: at the front, attempts 0.
            with.worker.do_send(TrackJob {
                note_id: note.id.clone(),
            });
            with.worker.do_send(ResumeNow {
                why: "one note's AI asked for by hand",
            });
            with.hub.do_send(NoteChanged { note: note.clone() });
            let from = match was {
                AiStatus::Done => EnrichFrom::Done,
                AiStatus::Failed => EnrichFrom::Failed,
                AiStatus::Pending => EnrichFrom::Pending,
            };
            with.telemetry
                .do_send(Emit(UsageEvent::AiEnrichRequested(AiEnrichRequested {
                    from,
                })));
            Ok(note)
        })
    }
}

impl Handler<Edit> for InboxActor {
    type Result = ResponseFuture<StoreResult<Note>>;

    fn handle(&mut self, msg: Edit, _: &mut Context<Self>) -> Self::Result {
        let _handled = handling!("Edit");
        let with = self.with.clone();
        let now = self.clock.now();
        Box::pin(async move {
            let fields = NoteEdited {
                body: msg.edit.body.is_some(),
                title: msg.edit.title.is_some(),
                tags: msg.edit.tags.is_some(),
            };
            let edited = with
                .repository
                .send(EditNote {
                    id: msg.id,
                    edit: msg.edit,
                    now,
                })
                .await
                .map_err(mailbox)??;
            if !edited.changed {
                return Ok(edited.note);
            }
            if edited.body_changed {
                // A fresh job, due now: the AI's output is about a body that is gone.
                with.worker.do_send(Enqueue {
                    note_ids: vec![edited.note.id.clone()],
                    at: now,
                });
            }
            with.hub.do_send(NoteChanged {
                note: edited.note.clone(),
            });
            with.telemetry.do_send(Emit(UsageEvent::NoteEdited(fields)));
            Ok(edited.note)
        })
    }
}

impl Handler<RenameTagEverywhere> for InboxActor {
    type Result = ResponseFuture<StoreResult<TagRenamed>>;

    fn handle(&mut self, msg: RenameTagEverywhere, _: &mut Context<Self>) -> Self::Result {
        let _handled = handling!("RenameTagEverywhere");
        let with = self.with.clone();
        let now = self.clock.now();
        Box::pin(async move {
            let renamed = with
                .repository
                .send(RenameTag {
                    from: msg.from,
                    to: msg.to,
                    now,
                })
                .await
                .map_err(mailbox)??;
            if renamed.notes > 0 {
                with.hub.do_send(NotesChanged {
                    count: renamed.notes,
                });
            }
            with.telemetry
                .do_send(Emit(UsageEvent::TagRenamed(TagRenamedEvent {
                    merged: renamed.merged,
                })));
            tracing::info!(tag = %renamed.tag, notes = renamed.notes, merged = renamed.merged, "tag renamed");
            Ok(renamed)
        })
    }
}

impl Handler<Import> for InboxActor {
    type Result = ResponseFuture<StoreResult<Imported>>;

    fn handle(&mut self, msg: Import, _: &mut Context<Self>) -> Self::Result {
        let _handled = handling!("Import");
        let with = self.with.clone();
        let now = self.clock.now();
        Box::pin(async move {
            let imported = with
                .repository
                .send(ImportNotes {
                    notes: msg.notes,
                    now,
                })
                .await
                .map_err(mailbox)??;
            let count = imported.notes.len() as u64;
            if count == 0 {
                return Ok(imported);
            }
            let waiting: Vec<String> = imported
                .notes
                .iter()
                .filter(|n| n.ai_status == AiStatus::Pending && n.deleted_at.is_none())
                .map(|n| n.id.clone())
                .collect();
            if !waiting.is_empty() {
                with.worker.do_send(Enqueue {
                    note_ids: waiting,
                    at: now,
                });
            }
            with.hub.do_send(NotesChanged { count });
            with.telemetry
                .do_send(Emit(UsageEvent::NotesImported(NotesImported { count })));
            tracing::info!(count, skipped = imported.skipped, "notes imported");
            Ok(imported)
        })
    }
}

impl Handler<DeleteNote> for InboxActor {
    type Result = ResponseFuture<StoreResult<()>>;

    fn handle(&mut self, msg: DeleteNote, _: &mut Context<Self>) -> Self::Result {
        let _handled = handling!("DeleteNote");
        let with = self.with.clone();
        Box::pin(async move {
            with.repository
                .send(DeleteForever { id: msg.id })
                .await
                .map_err(mailbox)??;
            with.hub.do_send(NotesChanged { count: 1 });
            Ok(())
        })
    }
}

impl Handler<EmptyTheTrash> for InboxActor {
    type Result = ResponseFuture<StoreResult<u64>>;

    fn handle(&mut self, _: EmptyTheTrash, _: &mut Context<Self>) -> Self::Result {
        let _handled = handling!("EmptyTheTrash");
        let with = self.with.clone();
        Box::pin(async move {
            let count = with.repository.send(EmptyTrash).await.map_err(mailbox)??;
            if count > 0 {
                with.hub.do_send(NotesChanged { count });
                tracing::info!(count, "the trash was emptied");
            }
            Ok(count)
        })
    }
}

impl Handler<TrashExpired> for InboxActor {
    type Result = ResponseFuture<StoreResult<Vec<String>>>;

    fn handle(&mut self, _: TrashExpired, _: &mut Context<Self>) -> Self::Result {
        let _handled = handling!("TrashExpired");
        let with = self.with.clone();
        let now = self.clock.now();
        Box::pin(async move {
            let ids = with
                .repository
                .send(TrashExpiredNotes { now })
                .await
                .map_err(mailbox)??;
            let count = ids.len() as u64;
            if count > 0 {
                with.trashed(ids.clone());
                with.hub.do_send(NotesChanged { count });
                tracing::info!(count, "expired notes moved to the trash");
            }
            Ok(ids)
        })
    }
}
