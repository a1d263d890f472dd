//! Import: checked notes brought in (`crate::export::ImportedNote::validate`), in one
//! transaction, ids that exist skipped; the pending ones queued for the AI, the
//! others for their vectors.

use super::{unavailable, Inbox};
use crate::actors::ai_worker::{EmbedNotes, Enqueue};
use crate::actors::repository::ImportNotes;
use crate::actors::telemetry::Emit;
use crate::domain::{AiStatus, Note};
use crate::storage::{Imported, StoreResult};
use crate::telemetry::events::{NotesImported, UsageEvent};

impl Inbox {
    /// Brings the notes in; the active pending ones go to the worker, then
    /// `notes_imported {count}`. Replies with what was imported and skipped.
    pub async fn import(&self, notes: Vec<Note>) -> StoreResult<Imported> {
        let now = self.clock.now();
        let imported = self
            .repository
            .send(ImportNotes { notes, now })
            .await
            .map_err(unavailable)??;
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
        // The others have no job, and no vector yet: the worker makes them.
        let done: Vec<String> = imported
            .notes
            .iter()
            .filter(|n| n.ai_status != AiStatus::Pending && n.deleted_at.is_none())
            .map(|n| n.id.clone())
            .collect();
        if !waiting.is_empty() {
            self.worker.do_send(Enqueue {
                note_ids: waiting,
                at: now,
            });
        }
        if !done.is_empty() {
            self.worker.do_send(EmbedNotes { note_ids: done });
        }
        self.telemetry
            .do_send(Emit(UsageEvent::NotesImported(NotesImported { count })));
        tracing::info!(count, skipped = imported.skipped, "notes imported");
        Ok(imported)
    }
}
