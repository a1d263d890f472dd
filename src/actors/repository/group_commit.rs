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
//! A capture waits for its answer, not for its message's turn (`inbox::capture`): the
//! empty turns of the messages ahead of it take a few hundred microseconds each under
//! load, and a client waiting for them sent its next note one commit late, so each
//! group held 1.1 notes with 8 clients; answered at its commit, about 4.
//!
//! Should the shared transaction fail, none of its notes is stored (it is rolled back
//! whole), and each note is stored again on its own, so each gets its own answer (a full
//! disk refuses them all; nothing else of one note can refuse another's). No note is
//! answered before the commit that holds it.
//!
//! Each note is announced as a single capture's is: its counts, then the note. What
//! that costs is paid once per group, not per note (issue #38 point 3): the change log
//! is read once for the whole group, the notes are announced as the capture stored them
//! (the log names them, the capture holds them: none is read back), and the counts
//! come from [`counts_of_group`], counted at most once.

use std::sync::{Arc, Mutex};

use actix::Message;
use chrono::{DateTime, Utc};
use tokio::sync::oneshot;

use super::{captured_in_log, counts_of_group, GroupCounts, NotesChange, RepositoryActor};
use crate::domain::{Note, NoteBody, NoteKind};
use crate::storage::{StoreError, StoreResult};

/// A capture waiting for the next commit, and where its answer goes.
struct Waiting {
    body: NoteBody,
    kind: NoteKind,
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
        kind: NoteKind,
        now: DateTime<Utc>,
    ) -> oneshot::Receiver<StoreResult<Note>> {
        let (answer, answered) = oneshot::channel();
        self.lock().push(Waiting {
            body,
            kind,
            now,
            answer,
        });
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
        let notes: Vec<(&NoteBody, NoteKind, DateTime<Utc>)> =
            waiting.iter().map(|w| (&w.body, w.kind, w.now)).collect();
        let results: Vec<StoreResult<Note>> = match store.capture_all(&notes) {
            Ok(stored) => stored.into_iter().map(Ok).collect(),
            Err(e) if waiting.len() == 1 => vec![Err(e)],
            Err(e) => {
                tracing::warn!(error = %e, notes = waiting.len(), "a shared capture commit failed; storing each note on its own");
                waiting
                    .iter()
                    .map(|w| store.capture_kind(&w.body, w.kind, w.now))
                    .collect()
            }
        };
        let stored: Vec<&Note> = results.iter().filter_map(|r| r.as_ref().ok()).collect();
        let now = waiting.last().map_or_else(Utc::now, |w| w.now);
        self.announce_captures(&stored, now);
        let all_stored = stored.len() == results.len();
        for (capture, result) in waiting.into_iter().zip(results) {
            // The asker may have gone (its connection closed): the note is stored all
            // the same, as a single capture's would be.
            let _ = capture.answer.send(result);
        }
        all_stored
    }

    /// Announces the notes a group of captures stored, each as a single capture's is:
    /// its counts, then the note. The log is read once for the group; a note it names
    /// that is not one of `stored` (none should be: the repository announces after every
    /// write) is read from the store.
    fn announce_captures(&mut self, stored: &[&Note], now: DateTime<Utc>) {
        let Some(store) = self.store.as_ref() else {
            return;
        };
        // Every change since the last announced: the group's own, and any a failed
        // read left behind.
        let changes = match store.changes_after(self.announced, usize::MAX) {
            Ok(changes) => changes,
            Err(e) => {
                // The notes stand; the page hears of the next write.
                tracing::warn!(error = %e, "cannot read the change log");
                return;
            }
        };
        let mut told: Vec<(bool, NotesChange)> = Vec::with_capacity(changes.len());
        for (id, captured) in captured_in_log(&changes, stored) {
            match captured {
                Some(note) => told.push((true, NotesChange::one(note))),
                None => match store.get(id) {
                    Ok(note) => told.push((false, NotesChange::one(&note))),
                    Err(StoreError::NotFound(_)) => {}
                    Err(e) => tracing::warn!(error = %e, "cannot read a changed note"),
                },
            }
        }
        let captured = told.iter().filter(|(capture, _)| *capture).count();
        let known = match self.counts {
            Some(last) => Some(GroupCounts::Before(last)),
            None => match store.counts(now) {
                Ok(counted) => Some(GroupCounts::After(counted)),
                Err(e) => {
                    tracing::warn!(error = %e, "cannot count the notes");
                    None
                }
            },
        };
        if let Some(last) = changes.last() {
            self.announced = last.seq;
        }
        let mut counts = known
            .map(|known| counts_of_group(known, captured))
            .unwrap_or_default()
            .into_iter();
        for (capture, change) in told {
            if capture {
                if let Some(counts) = counts.next() {
                    self.publish(counts);
                }
            }
            self.tell(Some(change));
        }
    }
}
