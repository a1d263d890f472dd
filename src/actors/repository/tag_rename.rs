//! A tag rename through the repository, in slices (issue #29 point 6): the one write
//! that may touch tens of thousands of notes, so it must not hold the repository's one
//! thread while it does.
//!
//! `RenameTag` checks and records the rename and replies at once (a refusal is its
//! reply); the notes are then renamed by `ContinueTagRename` messages the actor sends
//! itself, one slice of notes each (`Store::rename_tag_slice`, its own transaction).
//! Each goes to the back of the mailbox, so whatever arrived meanwhile (a capture) is
//! handled between two slices and waits at most one slice. The one who asked hears the
//! result on the rename's `done` channel. A rename that a crash cut short is finished
//! when the actor starts again (`resume_tag_renames`): the store recorded how far it got.

use actix::{Handler, Message, SyncContext};
use chrono::{DateTime, Utc};
use tokio::sync::oneshot;

use super::{NotesChange, RepositoryActor};
use crate::actors::handling;
use crate::actors::mailbox::Mailbox;
use crate::storage::RENAME_SLICE_NOTES;
use crate::storage::{RenameProgress, StoreError, StoreResult, TagRename, TagRenamed};

/// Renames a tag on every note, merging it into `to` when that exists. Replies once the
/// rename is checked and recorded (`NoSuchTag`, `Conflict` otherwise, nothing changed);
/// `done` then hears how it ended.
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<()>")]
pub struct RenameTag {
    pub from: String,
    pub to: String,
    pub now: DateTime<Utc>,
    pub done: oneshot::Sender<StoreResult<TagRenamed>>,
}

/// The next slice of a rename under way (the actor sends it to itself).
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct ContinueTagRename {
    rename: TagRename,
    now: DateTime<Utc>,
    /// Who waits for the end; `None` for a rename resumed after a restart.
    done: Option<oneshot::Sender<StoreResult<TagRenamed>>>,
}

impl RepositoryActor {
    /// Finishes the renames a crash cut short (each one's `now` is the restart's: the
    /// notes it changes are changed now).
    pub(super) fn resume_tag_renames(&mut self, ctx: &mut SyncContext<Self>) {
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
                // The slices before stay (each was whole): the notes they renamed are
                // renamed. The record goes, so the same rename asked again is not
                // refused as under way, and finishes the rest.
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
        if let Some(done) = done {
            // The asker may have gone (a closed connection): the rename is done anyway.
            let _ = done.send(ended);
        }
    }
}
