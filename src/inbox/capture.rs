//! Capture: a thought stored at once (durable when the reply comes), then queued for
//! the AI. The repository announces the note and the pending count. Captures that
//! arrive together share one commit (`actors::repository::group_commit`).

use super::Inbox;
use crate::actors::ai_worker::Enqueue;
use crate::actors::repository::CommitCaptures;
use crate::actors::search_indexer::NotesCaptured;
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
            // The first note since the last commit took the queue asks for the next;
            // the others join it (`actors::repository::group_commit`).
            self.repository
                .do_send(CommitCaptures::new(self.captures.clone()));
            self.indexer.do_send(NotesCaptured);
        }
        // The note's answer comes when the commit that holds it is on the disk. A
        // dropped answer: the repository stopped while storing it.
        let note = queued.answered.await.map_err(|_| {
            StoreError::Unavailable(
                "the repository stopped while storing the note: look for it before capturing it again"
                    .into(),
            )
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
