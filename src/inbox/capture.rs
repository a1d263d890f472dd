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
        let mut answered = self.captures.wait_for_commit(body, kind, now);
        let commit = self.repository.send(CommitCaptures(self.captures.clone()));
        // The note is answered as soon as the commit that holds it is on the disk, which
        // is often an earlier CommitCaptures than its own: the handler takes every note
        // waiting. The reply to its own message comes only when that message's turn
        // comes, several empty turns later under load, and a client that waited for it
        // sent its next note one commit late, so groups never formed (1.1 notes each
        // with 8 clients). So whichever comes first: the answer, or the reply to the
        // message (after which the answer is there or the repository stopped).
        let stored = tokio::select! {
            biased;
            stored = &mut answered => stored,
            sent = commit => {
                sent.map_err(unavailable)?;
                answered.await
            }
        };
        // A dropped answer means the repository stopped mid-way.
        let note = stored.map_err(|_| {
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
