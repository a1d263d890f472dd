//! `InboxActor`: the inbox use cases (capture, retry-all, the trash), and their messages.
//!
//! The HTTP API and the tray send the same typed messages here; each use case is a
//! short sequence over the other actors:
//! - `Capture`: store the note and its job (durable) → `note_captured` → enqueue;
//! - `RetryAllFailed` (docs/DESIGN.md, "Retry-all"): requeue every failed note in one transaction → enqueue
//!   each → `ai_retry_manual {failedCount}` and `FailedCountChanged`, only when at
//!   least one note was requeued (zero is the "nothing happened" sentinel) → resume
//!   the worker at once (a manual retry means "try now");
//! - `TrashExpired`: every expired note to the trash in one statement;
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
    CaptureNote, CountFailed, KeepNote, PurgeTrash, RepositoryActor, RequeueAllFailed, RestoreNote,
    TrashExpiredNotes, TrashNote,
};
use super::telemetry::{Emit, TelemetryActor};
use crate::clock::SharedClock;
use crate::domain::{AiStatus, Note, NoteBody};
use crate::events::{FailedCountChanged, NoteChanged, NotesChanged};
use crate::storage::{StoreError, StoreResult};
use crate::telemetry::events::{AiRetryManual, NoFields, UsageEvent};

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

/// Moves every expired note to the trash; replies with how many.
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<u64>")]
pub struct TrashExpired;

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
    /// What follows notes moving to the trash: out of the AI queue at once, one
    /// `note_trashed` each, announced, and the failed count (they may have been failed).
    async fn trashed(&self, ids: Vec<String>) -> StoreResult<()> {
        for _ in &ids {
            self.telemetry
                .do_send(Emit(UsageEvent::NoteTrashed(NoFields {})));
        }
        self.announce_changed(&ids);
        self.worker.do_send(Forget { note_ids: ids });
        let failed = self.repository.send(CountFailed).await.map_err(mailbox)??;
        self.hub.do_send(FailedCountChanged { count: failed });
        Ok(())
    }

    /// Tells the live page which notes changed: one event per note for a few, one
    /// "reload" for more than a page of them (a retry-all of thousands would otherwise
    /// make an open page fetch each one).
    fn announce_changed(&self, ids: &[String]) {
        if ids.len() > ONE_BY_ONE_AT_MOST {
            self.hub.do_send(NotesChanged {
                count: ids.len() as u64,
            });
            return;
        }
        for id in ids {
            self.hub.do_send(NoteChanged {
                note_id: id.clone(),
            });
        }
    }
}

/// Above this many notes changed at once, the page is told to reload (one page of it).
const ONE_BY_ONE_AT_MOST: usize = 50;

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
        let older_than = self.clock.now() - self.trash_retention;
        Box::pin(async move {
            match repository.send(PurgeTrash { older_than }).await {
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
            hub.do_send(NoteChanged {
                note_id: note.id.clone(),
            });
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
            with.announce_changed(&ids);
            // Counted before the worker takes the ids: its Enqueue of 100,000 jobs runs
            // on this thread (~70 ms) and the caller need not wait for it.
            let failed = with.repository.send(CountFailed).await.map_err(mailbox)??;
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
            with.hub.do_send(FailedCountChanged { count: failed });
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
                with.trashed(vec![outcome.note.id.clone()]).await?;
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
                    note_id: outcome.note.id.clone(),
                });
                match outcome.note.ai_status {
                    AiStatus::Pending => worker.do_send(TrackJob {
                        note_id: outcome.note.id.clone(),
                    }),
                    AiStatus::Failed => {
                        let failed = repository.send(CountFailed).await.map_err(mailbox)??;
                        hub.do_send(FailedCountChanged { count: failed });
                    }
                    AiStatus::Done => {}
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
            hub.do_send(NoteChanged {
                note_id: note.id.clone(),
            });
            Ok(note)
        })
    }
}

impl Handler<TrashExpired> for InboxActor {
    type Result = ResponseFuture<StoreResult<u64>>;

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
                with.trashed(ids).await?;
                tracing::info!(count, "expired notes moved to the trash");
            }
            Ok(count)
        })
    }
}
