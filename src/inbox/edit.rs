//! Editing by hand: a note's body, title or tags; one checklist item ticked; a tag
//! renamed on every note. A changed body queues the note afresh, as a capture does.

use super::{unavailable, Inbox};
use crate::actors::ai_worker::{EmbedNotes, Enqueue};
use crate::actors::repository::{EditNote, GetNote, RenameTag};
use crate::actors::telemetry::Emit;
use crate::domain::{EditError, Note, NoteEdit};
use crate::render::TaskError;
use crate::storage::{StoreError, StoreResult, TagRenamed};
use crate::telemetry::events::{NoteEdited, TagRenamed as TagRenamedEvent, UsageEvent};

/// Why a checklist item could not be ticked.
#[derive(Debug, thiserror::Error)]
pub enum TickError {
    /// The note is not there, is in the trash, or changed between the read and the
    /// write (`StoreError::Conflict`: refused, nothing overwritten).
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The note has no such item.
    #[error(transparent)]
    Task(#[from] TaskError),
    /// The ticked body is not a body this service takes (over the size limit, when the
    /// limit was lowered after the note was written).
    #[error(transparent)]
    Edit(#[from] EditError),
}

impl Inbox {
    /// Edits a note's body, title or tags; replies with the note as it is now. An edit
    /// that changes something is `note_edited {body, title, tags}`; a changed body
    /// gives the note a fresh job, due now (the AI's output is about a body that is
    /// gone), unless only checklist items were ticked on a note the AI has answered:
    /// that keeps its answer and asks no model.
    pub async fn edit(&self, id: String, edit: NoteEdit) -> StoreResult<Note> {
        let now = self.clock.now();
        let fields = NoteEdited {
            body: edit.body.is_some(),
            title: edit.title.is_some(),
            tags: edit.tags.is_some(),
        };
        let edited = self
            .repository
            .send(EditNote { id, edit, now })
            .await
            .map_err(unavailable)??;
        if !edited.changed {
            return Ok(edited.note);
        }
        if edited.queued_afresh {
            self.worker.do_send(Enqueue {
                note_ids: vec![edited.note.id.clone()],
                at: now,
            });
        } else if fields.body {
            // A tick kept the AI's answer, but the body changed and its vector went
            // with it (migration 0008's trigger): the worker makes it again.
            self.worker.do_send(EmbedNotes {
                note_ids: vec![edited.note.id.clone()],
            });
        }
        self.telemetry.do_send(Emit(UsageEvent::NoteEdited(fields)));
        Ok(edited.note)
    }

    /// Ticks (or unticks) the `index`-th checklist item (from 0): an edit of the body
    /// made from the body read here, so that a change made in between (another window,
    /// the command line) is refused as a conflict instead of overwritten
    /// (`NoteEdit::made_from`). An item already as asked changes nothing.
    pub async fn tick_task(&self, id: String, index: usize, done: bool) -> Result<Note, TickError> {
        let note = self
            .repository
            .send(GetNote { id: id.clone() })
            .await
            .map_err(unavailable)??;
        let Some(body) = crate::render::set_task(&note.body, index, done)? else {
            return Ok(note);
        };
        let edit =
            NoteEdit::parse(Some(body), None, None, self.max_body_bytes)?.made_from(note.body);
        Ok(self.edit(id, edit).await?)
    }

    /// Renames a tag on every note, merging it into `to` when that exists;
    /// `tag_renamed {merged}`.
    pub async fn rename_tag(&self, from: String, to: String) -> StoreResult<TagRenamed> {
        let now = self.clock.now();
        // Begun at once, then done in slices with other work in between (a capture
        // waits at most one slice): `done` hears the end.
        let (done, ended) = tokio::sync::oneshot::channel();
        self.repository
            .send(RenameTag {
                from,
                to,
                now,
                done,
            })
            .await
            .map_err(unavailable)??;
        let renamed = ended.await.map_err(|_| {
            StoreError::Unavailable(
                "the repository stopped before the rename was done; it is finished at the next start"
                    .into(),
            )
        })??;
        self.telemetry
            .do_send(Emit(UsageEvent::TagRenamed(TagRenamedEvent {
                merged: renamed.merged,
            })));
        tracing::info!(tag = %renamed.tag, notes = renamed.notes, merged = renamed.merged, "tag renamed");
        Ok(renamed)
    }
}
