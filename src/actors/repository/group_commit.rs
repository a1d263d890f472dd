//! Group commit of captures (issue #30 point 1): captures that arrive while a commit is
//! on the disk share the next transaction, so throughput can pass one fsync per note
//! while every note is still durable before its reply.
//!
//! The actor's mailbox cannot be looked into, so the captures wait in a queue of their
//! own ([`Captures`], held by the inbox): a capture puts its note there and sends
//! [`CommitCaptures`]; the handler takes every note waiting, stores them in one
//! transaction (`Store::capture_all`) and answers each. A note that came while the
//! previous transaction was being fsynced is taken by the next handler together with
//! the others that came meanwhile; the later `CommitCaptures` then find the queue
//! empty and do nothing. The mailbox is first in, first out, so by the time a
//! capture's own `CommitCaptures` is handled its note has been taken and answered.
//!
//! Should the shared transaction fail, each note is stored again on its own, so each
//! gets its own answer (a full disk refuses them all; nothing else of one note can
//! refuse another's). Each note is announced as a single capture's is.

use std::sync::{Arc, Mutex};

use actix::Message;
use chrono::{DateTime, Utc};
use tokio::sync::oneshot;

use super::{CountsChange, Live, RepositoryActor};
use crate::domain::{Note, NoteBody};
use crate::storage::{StoreError, StoreResult};

/// A capture waiting for the next commit, and where its answer goes.
struct Waiting {
    body: NoteBody,
    now: DateTime<Utc>,
    answer: oneshot::Sender<StoreResult<Note>>,
}

/// The captures waiting for the next commit. Cheap to clone (shared).
#[derive(Clone, Default)]
pub struct Captures {
    waiting: Arc<Mutex<Vec<Waiting>>>,
}

impl Captures {
    /// Puts a note in the queue; the answer comes on the returned channel once a
    /// [`CommitCaptures`] for this queue has been handled.
    pub fn wait_for_commit(
        &self,
        body: NoteBody,
        now: DateTime<Utc>,
    ) -> oneshot::Receiver<StoreResult<Note>> {
        let (answer, answered) = oneshot::channel();
        self.lock().push(Waiting { body, now, answer });
        answered
    }

    /// Every note waiting, in the order they came.
    fn take_all(&self) -> Vec<Waiting> {
        std::mem::take(&mut *self.lock())
    }

    /// A panic elsewhere while holding the lock cannot leave the list half-changed
    /// (a push or a take): the list is still good.
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Waiting>> {
        self.waiting.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Stores every capture waiting in `0`, in one transaction, and answers each.
#[derive(Message)]
#[rtype(result = "()")]
pub struct CommitCaptures(pub Captures);

impl RepositoryActor {
    /// [`CommitCaptures`]' work (its handler, in `mod.rs`, counts it with the
    /// repository's other messages): whether every note taken was stored.
    pub(super) fn commit_captures(&mut self, captures: &Captures) -> bool {
        let waiting = captures.take_all();
        if waiting.is_empty() {
            // Taken by the commit of an earlier message.
            return true;
        }
        let Some(store) = self.store.as_mut() else {
            for capture in waiting {
                let _ = capture.answer.send(Err(StoreError::Unavailable(
                    "the repository is not open".into(),
                )));
            }
            return false;
        };
        let notes: Vec<(&NoteBody, DateTime<Utc>)> =
            waiting.iter().map(|w| (&w.body, w.now)).collect();
        let results: Vec<StoreResult<Note>> = match store.capture_all(&notes) {
            Ok(stored) => stored.into_iter().map(Ok).collect(),
            Err(e) if waiting.len() == 1 => vec![Err(e)],
            Err(e) => {
                tracing::warn!(error = %e, notes = waiting.len(), "a shared capture commit failed; storing each note on its own");
                waiting
                    .iter()
                    .map(|w| store.capture(&w.body, w.now))
                    .collect()
            }
        };
        let stored = results.iter().all(Result::is_ok);
        for (capture, result) in waiting.into_iter().zip(results) {
            if result.is_ok() {
                // Its counts, then its note: the next change of the log.
                self.announce(CountsChange::OnePending, capture.now);
                self.follow_log(Live::Each, 1);
            }
            // The asker may have gone (its connection closed): the note is stored all
            // the same, as a single capture's would be.
            let _ = capture.answer.send(result);
        }
        stored
    }
}
