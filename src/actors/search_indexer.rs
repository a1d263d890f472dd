//! `SearchIndexer`: writes the search entries of new notes once captures pause.
//!
//! A captured note's search entries are written behind its capture, in batches
//! (`storage/store/search_index.rs`): by the commit's handler once 256 notes wait, and
//! by any search before it reads the index. Left at that, the first search after a
//! burst of captures would write them, and the FTS5 merge that may come with them
//! (tens of milliseconds at 100,000 notes). So the inbox tells this actor when it
//! asks for a commit of captures or stores a voice note, start-up tells it once (for
//! the notes a last run left pending), and 0.5–1 s after the last time it was told
//! (the timer runs in steps of a [`PAUSE`]), the actor asks the repository to write
//! what waits (`IndexPending`): a search then rarely has anything to write.
//!
//! Its one timer (`run_later`) is armed only while notes may wait: a service with no
//! captures wakes for nothing. Under steady captures it wakes every [`PAUSE`] and
//! finds them still coming; the batch rule writes the entries meanwhile.

use std::time::Duration;

use actix::prelude::*;

use super::handling;
use super::mailbox::Subscriber;
use super::repository::IndexPending;

/// How long without a capture counts as a pause.
pub const PAUSE: Duration = Duration::from_millis(500);

pub struct SearchIndexer {
    /// The repository (a test's stand-in in the tests).
    repository: Subscriber<IndexPending>,
    /// A capture came since the timer was armed: the pause has not come yet.
    captured: bool,
    armed: bool,
}

impl SearchIndexer {
    pub fn new(repository: Subscriber<IndexPending>) -> Self {
        SearchIndexer {
            repository,
            captured: false,
            armed: false,
        }
    }

    fn arm(&mut self, ctx: &mut Context<Self>) {
        self.captured = false;
        self.armed = true;
        ctx.run_later(PAUSE, |act, ctx| {
            act.armed = false;
            if act.captured {
                act.arm(ctx);
            } else {
                act.repository.do_send(IndexPending);
            }
        });
    }
}

impl Actor for SearchIndexer {
    type Context = Context<Self>;
}

/// The inbox asked the repository for a commit of captures: notes may wait for their
/// search entries.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct NotesCaptured;

impl Handler<NotesCaptured> for SearchIndexer {
    type Result = ();

    fn handle(&mut self, _: NotesCaptured, ctx: &mut Context<Self>) {
        let _handled = handling!("NotesCaptured");
        if self.armed {
            self.captured = true;
        } else {
            self.arm(ctx);
        }
    }
}
