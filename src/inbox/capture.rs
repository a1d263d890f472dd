//! Capture: a thought stored at once (durable when the reply comes), then queued for
//! the AI. The repository announces the note and the pending count. Captures that
//! arrive together share one commit (`actors::repository::group_commit`).

use super::{unavailable, Inbox};
use crate::actors::ai_worker::Enqueue;
use crate::actors::repository::CommitCaptures;
use crate::actors::telemetry::Emit;
use crate::domain::{Note, NoteBody, NoteKind};
use crate::storage::{StoreError, StoreResult};
use crate::telemetry::events::{NoFields, UsageEvent};

impl Inbox {
    /// Stores the note and its job row (durable), then `note_captured`, then queues it.
    pub async fn capture(&self, body: NoteBody) -> StoreResult<Note> {
        self.capture_kind(body, NoteKind::Note).await
    }

    /// [`Inbox::capture`] of a note of `kind`: an answer saved from Ask is marked so.
    pub async fn capture_kind(&self, body: NoteBody, kind: NoteKind) -> StoreResult<Note> {
        let now = self.clock.now();
        let queued = self.captures.queue(body, kind, now);
        if queued.commit_needed {
            self.request_commit();
        }
        // A dropped answer means the repository stopped mid-way.
        let note = queued.answered.await.map_err(|_| {
            StoreError::Unavailable("the repository stopped before the note was stored".into())
        })??;
        self.telemetry
            .do_send(Emit(UsageEvent::NoteCaptured(NoFields {})));
        self.worker.do_send(Enqueue {
            note_ids: vec![note.id.clone()],
            at: now,
        });
        Ok(note)
    }

    /// Sends the [`CommitCaptures`] that takes the notes waiting, from a task of its
    /// own: the capture waits for its note's answer, which comes at the commit, and
    /// the message is handled even if this capture's asker goes (actix skips a message
    /// whose sender dropped its reply, and the notes would wait for the next capture).
    fn request_commit(&self) {
        let commit = self.repository.send(CommitCaptures(self.captures.clone()));
        let captures = self.captures.clone();
        tokio::spawn(async move {
            if let Err(e) = commit.await {
                // The repository stopped before or while taking them: say so to each.
                captures.refuse_all(|| unavailable(e));
            }
        });
    }
}
