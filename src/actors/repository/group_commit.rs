//! Group commit of captures (issue #30 point 1): captures that arrive while a commit is
//! on the disk share the next transaction, so throughput can pass one fsync per note
//! while every note is still durable before its reply.
//!
//! The actor's mailbox cannot be looked into, so the captures wait in a queue of their
//! own ([`Captures`], held by the inbox): a capture puts its note there and, unless a
//! [`CommitCaptures`] is already on its way, sends one; the handler takes every note
//! waiting, stores them in one transaction (`Store::capture_all`) and answers each.
//! Notes that come while a transaction is being fsynced wait for the next message,
//! sent by the first of them, and share its commit. So there is one message per
//! commit, not one per capture, and a capture waits for its answer only.
//!
//! Until 2026-12-06 each capture sent a message and waited for its reply: with 8
//! clients the replies of the messages whose notes an earlier commit had taken came
//! one empty turn after another, a capture waited ~3.6 ms after its note was on the
//! disk, each client sent its next note one commit late, and a commit held 1.1 notes.
//! Now it holds about 4 (docs/PERFORMANCE.md, "Capture").
//!
//! The message is sent with `do_send`, which actix never skips, and refuses the notes
//! waiting if it is dropped unhandled all the same (the repository stopped): with the
//! queue's flag saying a message is on its way, a lost one would leave every later
//! capture waiting.
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
    queue: Arc<Mutex<Queue>>,
}

#[derive(Default)]
struct Queue {
    waiting: Vec<Waiting>,
    /// A [`CommitCaptures`] is on its way and has not taken the queue yet: it will
    /// take every note put in before it does.
    requested: bool,
}

/// A capture put in the queue ([`Captures::queue`]).
pub struct Queued {
    /// Its answer, once the commit that holds it is on the disk.
    pub answered: oneshot::Receiver<StoreResult<Note>>,
    /// Whether a [`CommitCaptures`] must be sent for it: not when one is already on
    /// its way, whose handler takes this note too.
    pub commit_needed: bool,
}

impl Captures {
    /// Puts a note in the queue; see [`Queued`].
    pub fn queue(&self, body: NoteBody, kind: NoteKind, now: DateTime<Utc>) -> Queued {
        let (answer, answered) = oneshot::channel();
        let mut queue = self.lock();
        queue.waiting.push(Waiting {
            body,
            kind,
            now,
            answer,
        });
        let commit_needed = !std::mem::replace(&mut queue.requested, true);
        Queued {
            answered,
            commit_needed,
        }
    }

    /// Answers every note waiting with `error` and stores none: the [`CommitCaptures`]
    /// meant to take them was dropped unhandled.
    fn refuse_all(&self, error: impl Fn() -> StoreError) {
        for capture in self.take_all() {
            let _ = capture.answer.send(Err(error()));
        }
    }

    /// Every note waiting, in the order they came; the next note needs a new
    /// [`CommitCaptures`].
    fn take_all(&self) -> Vec<Waiting> {
        let mut queue = self.lock();
        queue.requested = false;
        std::mem::take(&mut queue.waiting)
    }

    /// A panic elsewhere while holding the lock cannot leave the queue half-changed
    /// (a push or a take): the queue is still good.
    fn lock(&self) -> std::sync::MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Stores every capture waiting in its queue, in one transaction, and answers each.
///
/// Sent with `do_send`, which actix never skips (a message sent with `send` whose
/// asker has gone is dropped unhandled). Should it be dropped unhandled all the same
/// (the repository stopped, or was never running), it refuses the notes waiting: the
/// queue's flag says a message is on its way, and without this every later capture
/// would wait for one that never comes.
#[derive(Message)]
#[rtype(result = "()")]
pub struct CommitCaptures {
    captures: Captures,
    taken: bool,
}

impl CommitCaptures {
    /// The message that takes the notes waiting in `captures`.
    pub fn new(captures: Captures) -> Self {
        CommitCaptures {
            captures,
            taken: false,
        }
    }
}

impl Drop for CommitCaptures {
    fn drop(&mut self) {
        if !self.taken {
            self.captures.refuse_all(|| {
                StoreError::Unavailable(
                    "the repository is not running; the note was not stored".into(),
                )
            });
        }
    }
}

impl RepositoryActor {
    /// [`CommitCaptures`]' work (its handler, in `mod.rs`, counts it with the
    /// repository's other messages): whether every note taken was stored.
    pub(super) fn commit_captures(&mut self, message: &mut CommitCaptures) -> bool {
        // From here the notes are this handler's to answer, even if it panics (their
        // answers then dropped: the capture says the repository stopped).
        message.taken = true;
        let waiting = message.captures.take_all();
        if waiting.is_empty() {
            // Taken by an earlier message (a caller that sends its own, as the tests
            // do) or refused by a message dropped unhandled.
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
        // The search entries of the notes captured so far, once a batch of them waits
        // (`storage/store/search_index.rs`): after the answers, so no capture waits.
        if let Some(store) = self.store.as_ref() {
            store.index_if_behind();
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
