//! The group commit of captures (`src/actors/repository/group_commit.rs`, issue #38
//! point 3): captures waiting together are stored in one transaction, none is answered
//! before that commit, each announces its counts and itself as a single capture does,
//! and a commit that fails stores none of its notes.

use std::sync::{Arc, Mutex};

use actix::prelude::*;
use inkling::actors::hub::{Hub, Subscribe};
use inkling::actors::mailbox::Mailbox;
use inkling::actors::repository::{Captures, CommitCaptures, IndexPending, RepositoryActor};
use inkling::events::{CountsChanged, NoteChanged};
use inkling::storage::{NoteCounts, Store};

use crate::{queue_all, EXPIRY_DAYS};

/// Records the counts and the notes the repository announces, in the order heard.
#[derive(Default, Clone)]
struct Heard(Arc<Mutex<Vec<String>>>);

impl Actor for Heard {
    type Context = Context<Self>;
}

impl Handler<CountsChanged> for Heard {
    type Result = ();
    fn handle(&mut self, msg: CountsChanged, _: &mut Context<Self>) {
        let c = msg.counts;
        let line = format!("counts {} {} {}", c.pending, c.failed, c.expired);
        self.0.lock().unwrap().push(line);
    }
}

impl Handler<NoteChanged> for Heard {
    type Result = ();
    fn handle(&mut self, msg: NoteChanged, _: &mut Context<Self>) {
        self.0
            .lock()
            .unwrap()
            .push(format!("note {}", msg.note.body));
    }
}

/// A round trip through the listener: what the hub passed on before has been heard.
#[derive(Message)]
#[rtype(result = "()")]
struct Barrier;

impl Handler<Barrier> for Heard {
    type Result = ();
    fn handle(&mut self, _: Barrier, _: &mut Context<Self>) {}
}

struct Running {
    repository: Addr<RepositoryActor>,
    hub: Mailbox<Hub>,
    heard: Heard,
    listener: Addr<Heard>,
    /// A connection of its own on the same file: what is on disk, as another process
    /// would read it.
    reader: rusqlite::Connection,
    _dir: tempfile::TempDir,
}

impl Running {
    /// The repository on a new database; `refuse` is run on its connection first (a
    /// trigger that makes some writes fail).
    async fn start(refuse: &str) -> Running {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("inkling.db");
        let store = Store::open(&path, EXPIRY_DAYS).unwrap();
        store.connection().execute_batch(refuse).unwrap();
        let hub = Mailbox::from(Hub::default().start());
        let heard = Heard::default();
        let listener = heard.clone().start();
        let to = Mailbox::from(listener.clone());
        hub.send(Subscribe(to.recipient::<CountsChanged>()))
            .await
            .unwrap();
        hub.send(Subscribe(to.recipient::<NoteChanged>()))
            .await
            .unwrap();
        let repository = RepositoryActor::start(store, path.clone(), hub.clone());
        let reader = rusqlite::Connection::open(&path).unwrap();
        Running {
            repository,
            hub,
            heard,
            listener,
            reader,
            _dir: dir,
        }
    }

    /// Everything announced since the last call.
    async fn heard(&self) -> Vec<String> {
        // The repository sends to the hub before it answers, and the hub and the
        // listener are first in, first out: a marker sent through both comes last.
        let marker = NoteCounts {
            pending: 999,
            ..NoteCounts::default()
        };
        self.hub
            .send(CountsChanged { counts: marker })
            .await
            .unwrap();
        self.listener.send(Barrier).await.unwrap();
        let mut heard = std::mem::take(&mut *self.heard.0.lock().unwrap());
        assert_eq!(heard.pop().as_deref(), Some("counts 999 0 0"));
        heard
    }

    fn count(&self, sql: &str) -> i64 {
        self.reader.query_row(sql, [], |r| r.get(0)).unwrap()
    }
}

#[actix_rt::test]
async fn a_group_is_on_disk_before_any_capture_in_it_is_answered_and_each_announces_its_counts() {
    let running = Running::start("").await;
    let captures = Captures::default();
    for (round, size) in [(0, 4), (1, 3)] {
        let answers = queue_all(
            &captures,
            (0..size).map(|i| format!("group {round} note {i}")),
        );
        running
            .repository
            .send(CommitCaptures::new(captures.clone()))
            .await
            .unwrap();
        let stored_before = running.count("SELECT count(*) FROM notes");
        for queued in answers {
            let note = queued.answered.await.unwrap().unwrap();
            // Another connection sees the note, its job and its change: it was
            // committed before the answer was sent.
            let on_disk: i64 = running
                .reader
                .query_row(
                    "SELECT (SELECT count(*) FROM notes WHERE id = ?1)
                          + (SELECT count(*) FROM pending_jobs WHERE note_id = ?1)
                          + (SELECT count(*) FROM note_changes WHERE note_id = ?1)",
                    [&note.id],
                    |r| r.get(0),
                )
                .unwrap();
            assert_eq!(on_disk, 3, "{} on disk before its answer", note.body);
        }
        assert_eq!(
            stored_before,
            [4, 7][round],
            "the whole group was stored when the first answer could be read"
        );
    }
    // The first group found no counts known (the repository had just started): they
    // were counted once after its commit, and each note announced what it made them,
    // never a note counted twice. The second counted nothing. Each note's counts come
    // before the note itself, as a single capture's do.
    let mut expected = Vec::new();
    for (pending, (round, i)) in
        (1..=7).zip([(0, 0), (0, 1), (0, 2), (0, 3), (1, 0), (1, 1), (1, 2)])
    {
        expected.push(format!("counts {pending} 0 0"));
        expected.push(format!("note group {round} note {i}"));
    }
    assert_eq!(running.heard().await, expected);
}

#[actix_rt::test]
async fn a_failed_commit_fails_every_capture_in_it_and_leaves_nothing_half_written() {
    // Every write of a note whose body begins with "refused" fails at its change-log
    // row, its last statement: the note and its job row were already written in the
    // transaction when it fails.
    let running = Running::start(
        "CREATE TEMP TRIGGER refuse AFTER INSERT ON note_changes
         WHEN (SELECT body FROM notes WHERE id = new.note_id) LIKE 'refused%'
         BEGIN SELECT RAISE(ABORT, 'refused by the test'); END;",
    )
    .await;
    let captures = Captures::default();
    let answers = queue_all(&captures, (0..3).map(|i| format!("refused {i}")));
    running
        .repository
        .send(CommitCaptures::new(captures.clone()))
        .await
        .unwrap();
    for queued in answers {
        assert!(
            queued.answered.await.unwrap().is_err(),
            "every capture refused"
        );
    }
    for table in ["notes", "pending_jobs", "note_changes", "search_pending"] {
        assert_eq!(
            running.count(&format!("SELECT count(*) FROM {table}")),
            0,
            "nothing of the group in {table}"
        );
    }
    assert!(running.heard().await.is_empty(), "nothing announced");

    // One refused note among others refuses only itself: the group's commit fails,
    // and each note is stored again on its own.
    let texts = ["kept 1", "refused 4", "kept 2"];
    let answers = texts.into_iter().zip(queue_all(&captures, texts));
    running
        .repository
        .send(CommitCaptures::new(captures.clone()))
        .await
        .unwrap();
    for (text, queued) in answers {
        let answer = queued.answered.await.unwrap();
        assert_eq!(answer.is_ok(), text.starts_with("kept"), "{text}");
    }
    assert_eq!(running.count("SELECT count(*) FROM notes"), 2);
    assert_eq!(running.count("SELECT count(*) FROM pending_jobs"), 2);
    assert_eq!(running.count("SELECT count(*) FROM note_changes"), 2);
    assert_eq!(
        running.heard().await,
        ["counts 1 0 0", "note kept 1", "counts 2 0 0", "note kept 2"]
    );
}

#[actix_rt::test]
async fn one_message_takes_every_capture_waiting_so_only_the_first_asks_for_a_commit() {
    let running = Running::start("").await;
    let captures = Captures::default();
    let queued = queue_all(&captures, (0..3).map(|i| format!("waiting {i}")));
    let asked: Vec<bool> = queued.iter().map(|q| q.commit_needed).collect();
    assert_eq!(
        asked,
        [true, false, false],
        "one commit asked for the three"
    );
    running
        .repository
        .send(CommitCaptures::new(captures.clone()))
        .await
        .unwrap();
    for (i, queued) in queued.into_iter().enumerate() {
        let note = queued.answered.await.unwrap().unwrap();
        assert_eq!(note.body, format!("waiting {i}"));
    }
    // Once the message took them, the next capture asks for a commit of its own.
    let next = queue_all(&captures, ["next"]).remove(0);
    assert!(
        next.commit_needed,
        "the queue was taken: a new commit is needed"
    );
    running
        .repository
        .send(CommitCaptures::new(captures.clone()))
        .await
        .unwrap();
    assert_eq!(next.answered.await.unwrap().unwrap().body, "next");
    assert_eq!(running.count("SELECT count(*) FROM notes"), 4);
}

#[actix_rt::test]
async fn a_commit_message_dropped_unhandled_refuses_its_notes_and_the_next_capture_asks_again() {
    let running = Running::start("").await;
    let captures = Captures::default();
    let queued = queue_all(&captures, ["one", "two"]);
    assert!(queued[0].commit_needed && !queued[1].commit_needed);
    // As actix drops a message the repository can no longer handle (it stopped).
    drop(CommitCaptures::new(captures.clone()));
    for queued in queued {
        let refused = queued.answered.await.unwrap();
        assert!(
            matches!(refused, Err(inkling::storage::StoreError::Unavailable(_))),
            "{refused:?}"
        );
    }
    // Not left waiting for a message that never comes: the next capture asks for its
    // own commit, and it is stored.
    let next = queue_all(&captures, ["after"]).remove(0);
    assert!(next.commit_needed);
    running
        .repository
        .do_send(CommitCaptures::new(captures.clone()));
    assert_eq!(next.answered.await.unwrap().unwrap().body, "after");
    assert_eq!(running.count("SELECT count(*) FROM notes"), 1);
}

/// The search entries of the notes captured are written once a batch waits, by the
/// handler that stored the batch's last note (`storage/store/search_index.rs`).
#[actix_rt::test]
async fn once_a_batch_of_notes_waits_for_search_entries_the_commit_s_handler_writes_them() {
    let running = Running::start("").await;
    let captures = Captures::default();
    let batch = inkling::storage::INDEX_BATCH;
    let mut answers = queue_all(&captures, (1..batch).map(|i| format!("note {i}")));
    running
        .repository
        .send(CommitCaptures::new(captures.clone()))
        .await
        .unwrap();
    assert_eq!(
        running.count("SELECT count(*) FROM search_pending"),
        batch as i64 - 1
    );
    answers.extend(queue_all(&captures, ["the last of the batch"]));
    running
        .repository
        .send(CommitCaptures::new(captures.clone()))
        .await
        .unwrap();
    for queued in answers {
        queued.answered.await.unwrap().unwrap();
    }
    assert_eq!(running.count("SELECT count(*) FROM search_pending"), 0);
    assert_eq!(
        running.count("SELECT count(*) FROM search_bodies"),
        batch as i64
    );
}

/// Stands in for the repository: counts the `IndexPending` it is sent. On the test's
/// own runtime, so a round trip through it leaves no moment where tokio's paused clock
/// would jump ahead by itself.
#[derive(Default)]
struct Asked(usize);

impl Actor for Asked {
    type Context = Context<Self>;
}

impl Handler<IndexPending> for Asked {
    type Result = inkling::storage::StoreResult<u64>;
    fn handle(&mut self, _: IndexPending, _: &mut Context<Self>) -> Self::Result {
        self.0 += 1;
        Ok(0)
    }
}

#[derive(Message)]
#[rtype(result = "usize")]
struct HowMany;

impl Handler<HowMany> for Asked {
    type Result = usize;
    fn handle(&mut self, _: HowMany, _: &mut Context<Self>) -> usize {
        self.0
    }
}

/// The search entries of captured notes are asked for once captures pause
/// (`src/actors/search_indexer.rs`): not while they keep coming, then once, and the
/// indexer then sleeps until told again.
#[actix_rt::test]
async fn the_indexer_asks_for_the_search_entries_once_captures_pause_and_then_sleeps() {
    use inkling::actors::mailbox::Subscriber;
    use inkling::actors::search_indexer::{NotesCaptured, SearchIndexer, PAUSE};
    tokio::time::pause();
    let asked = Asked::default().start();
    let indexer = SearchIndexer::new(Subscriber::short_lived(asked.clone().recipient())).start();
    // A round trip through the indexer, then through the stand-in: whatever the
    // indexer's timer sent by then has been counted.
    let how_many = || async {
        tokio::task::yield_now().await;
        asked.send(HowMany).await.unwrap()
    };
    let step = PAUSE / 4;
    // Told every quarter pause for two pauses: it waits.
    for _ in 0..8 {
        indexer.send(NotesCaptured).await.unwrap();
        tokio::time::advance(step).await;
        assert_eq!(how_many().await, 0, "captures still coming");
    }
    // Then quiet: asked once, within two pauses of the last.
    for _ in 0..8 {
        tokio::time::advance(step).await;
        how_many().await;
    }
    assert_eq!(how_many().await, 1);
    // And nothing more while nothing comes: no timer left.
    for _ in 0..80 {
        tokio::time::advance(step).await;
        assert_eq!(how_many().await, 1, "asleep");
    }
    indexer.send(NotesCaptured).await.unwrap();
    for _ in 0..8 {
        tokio::time::advance(step).await;
        how_many().await;
    }
    assert_eq!(how_many().await, 2, "told again");
}
