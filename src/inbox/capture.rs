//! Capture: a thought stored at once (durable when the reply comes), then queued for
//! the AI. The repository announces the note and the pending count.

use super::{unavailable, Inbox};
use crate::actors::ai_worker::Enqueue;
use crate::actors::repository::CaptureNote;
use crate::actors::telemetry::Emit;
use crate::domain::{Note, NoteBody};
use crate::storage::StoreResult;
use crate::telemetry::events::{NoFields, UsageEvent};

impl Inbox {
    /// Stores the note and its job row (durable), then `note_captured`, then queues it.
    pub async fn capture(&self, body: NoteBody) -> StoreResult<Note> {
        let now = self.clock.now();
        let note = self
            .repository
            .send(CaptureNote { body, now })
            .await
            .map_err(unavailable)??;
        self.telemetry
            .do_send(Emit(UsageEvent::NoteCaptured(NoFields {})));
        self.worker.do_send(Enqueue {
            note_ids: vec![note.id.clone()],
            at: now,
        });
        Ok(note)
    }
}
