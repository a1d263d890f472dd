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
        let answered = self.captures.wait_for_commit(body, kind, now);
        self.repository
            .send(CommitCaptures(self.captures.clone()))
            .await
            .map_err(unavailable)?;
        // Answered by the time its CommitCaptures was handled (or by an earlier one);
        // a dropped answer means the repository stopped mid-way.
        let note = answered.await.map_err(|_| {
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
}
