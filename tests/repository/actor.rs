//! The `RepositoryActor` in front of the store: every message served in order, the
//! counts announced after each write as the database has them, and the notes a
//! person's write changed announced from the write's own result.

use std::sync::{Arc, Mutex};

use actix::prelude::*;
use chrono::Duration;
use inkling::actors::hub::{Hub, Subscribe};
use inkling::actors::mailbox::Mailbox;
use inkling::actors::repository::{
    CaptureNote, Captures, CommitCaptures, CountFailed, DeleteForever, EditNote, EmptyTrash,
    GetCounts, KeepNote, ListNotes, MarkAiFailed, RepositoryActor, RestoreNote, RetryAllFailed,
    SaveEnrichment, TrashNote,
};
use inkling::domain::{Enrichment, ListFilter, NoteEdit};
use inkling::events::{CountsChanged, FailedCountChanged, NoteChanged, NotesChanged};
use inkling::storage::Store;

use crate::{body, queue_all, t0, EXPIRY_DAYS};

#[actix_rt::test]
async fn the_actor_serves_every_message_in_order_from_its_own_thread() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("inkling.db");
    let store = Store::open(&path, EXPIRY_DAYS).unwrap();
    let hub = Mailbox::from(Hub::default().start());
    let repository = RepositoryActor::start(store, path, hub);

    let captures: Vec<_> = (0..100)
        .map(|i| {
            repository.send(CaptureNote {
                body: body(&format!("note {i}")),
                now: t0(),
            })
        })
        .collect();
    for reply in futures_util::future::join_all(captures).await {
        reply.unwrap().unwrap();
    }

    let counts = repository
        .send(GetCounts { now: t0() })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(counts.pending, 100);
    assert_eq!(repository.send(CountFailed).await.unwrap().unwrap(), 0);
    assert!(repository
        .send(RetryAllFailed { now: t0() })
        .await
        .unwrap()
        .unwrap()
        .is_empty());
    let listed = repository
        .send(ListNotes {
            filter: ListFilter::default(),
            now: t0(),
        })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(listed.len(), 50);
}

/// Records the counts the repository announces.
#[derive(Default, Clone)]
struct Announced(Arc<Mutex<Vec<String>>>);

impl Actor for Announced {
    type Context = Context<Self>;
}

impl Handler<CountsChanged> for Announced {
    type Result = ();
    fn handle(&mut self, msg: CountsChanged, _: &mut Context<Self>) {
        let c = msg.counts;
        self.0
            .lock()
            .unwrap()
            .push(format!("counts {} {} {}", c.pending, c.failed, c.expired));
    }
}

impl Handler<FailedCountChanged> for Announced {
    type Result = ();
    fn handle(&mut self, msg: FailedCountChanged, _: &mut Context<Self>) {
        self.0.lock().unwrap().push(format!("failed {}", msg.count));
    }
}

#[actix_rt::test]
async fn every_write_that_moves_the_counts_announces_them_as_the_database_has_them() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("inkling.db");
    let store = Store::open(&path, EXPIRY_DAYS).unwrap();
    let reader = Store::open(&path, EXPIRY_DAYS).unwrap();
    let hub = Mailbox::from(Hub::default().start());
    let announced = Announced::default();
    let listener = Mailbox::from(announced.clone().start());
    hub.send(Subscribe(listener.recipient::<CountsChanged>()))
        .await
        .unwrap();
    hub.send(Subscribe(listener.recipient::<FailedCountChanged>()))
        .await
        .unwrap();
    let repository = RepositoryActor::start(store, path, hub.clone());
    let now = t0() + Duration::days(31);
    let capture = |text: &str, at| CaptureNote {
        body: body(text),
        now: at,
    };
    // What the listener heard last, once the hub has passed it on.
    let last_heard = |prefix: &'static str| {
        let announced = announced.clone();
        let hub = hub.clone();
        async move {
            hub.send(NotesChanged { count: 0 }).await.unwrap(); // a round trip: delivered
            actix_rt::task::yield_now().await;
            announced
                .0
                .lock()
                .unwrap()
                .iter()
                .rev()
                .find(|line| line.starts_with(prefix))
                .cloned()
        }
    };
    let as_counted = |reader: &Store| {
        let c = reader.counts(now).unwrap();
        format!("counts {} {} {}", c.pending, c.failed, c.expired)
    };

    let old = repository
        .send(capture("old", t0()))
        .await
        .unwrap()
        .unwrap();
    let a = repository.send(capture("a", now)).await.unwrap().unwrap();
    let b = repository.send(capture("b", now)).await.unwrap().unwrap();
    // Captures count pending up without counting: expired is read on the next status.
    repository.send(GetCounts { now }).await.unwrap().unwrap();
    assert_eq!(last_heard("counts").await.unwrap(), as_counted(&reader));
    assert_eq!(last_heard("counts").await.unwrap(), "counts 3 0 1");

    // Each write, then what was announced against what the database holds.
    macro_rules! write_then_check {
        ($message:expr) => {{
            repository.send($message).await.unwrap().unwrap();
            assert_eq!(last_heard("counts").await.unwrap(), as_counted(&reader));
        }};
    }
    let enrichment = Enrichment {
        title: "T".into(),
        tags: vec![],
        summary: "S".into(),
        read_chars: None,
        remind_phrase: None,
    };
    write_then_check!(SaveEnrichment {
        note_id: a.id.clone(),
        body_read: a.body.clone(),
        enrichment,
        now,
    });
    write_then_check!(MarkAiFailed {
        note_id: b.id.clone(),
        error: "schema: x".into(),
        now,
    });
    assert_eq!(last_heard("failed").await.unwrap(), "failed 1");
    write_then_check!(KeepNote {
        id: old.id.clone(),
        now,
    });
    write_then_check!(TrashNote {
        id: b.id.clone(),
        now,
    });
    assert_eq!(last_heard("failed").await.unwrap(), "failed 0");
    write_then_check!(RestoreNote {
        id: b.id.clone(),
        now,
    });
    write_then_check!(RetryAllFailed { now });
    assert_eq!(last_heard("counts").await.unwrap(), "counts 2 0 0");

    // Announced only when they moved: a read that finds them as they were says nothing.
    let heard = announced.0.lock().unwrap().len();
    repository.send(GetCounts { now }).await.unwrap().unwrap();
    last_heard("counts").await;
    assert_eq!(announced.0.lock().unwrap().len(), heard);
}

/// Records the note changes the repository announces, as `note <body> <status>` and
/// `notes <count>`.
#[derive(Default, Clone)]
struct NotesHeard(Arc<Mutex<Vec<String>>>);

impl Actor for NotesHeard {
    type Context = Context<Self>;
}

impl NotesHeard {
    /// A listener that hears every note change the hub passes on (one note's and a
    /// batch's), and what it has heard.
    async fn listening(hub: &Mailbox<Hub>) -> (NotesHeard, Addr<NotesHeard>) {
        let heard = NotesHeard::default();
        let listener = heard.clone().start();
        hub.send(Subscribe(
            Mailbox::from(listener.clone()).recipient::<NoteChanged>(),
        ))
        .await
        .unwrap();
        hub.send(Subscribe(
            Mailbox::from(listener.clone()).recipient::<NotesChanged>(),
        ))
        .await
        .unwrap();
        (heard, listener)
    }
}

impl Handler<NoteChanged> for NotesHeard {
    type Result = ();
    fn handle(&mut self, msg: NoteChanged, _: &mut Context<Self>) {
        let note = msg.note;
        let place = if note.deleted_at.is_some() {
            "trashed"
        } else {
            "active"
        };
        self.0.lock().unwrap().push(format!(
            "note {} {} {place}",
            note.body,
            note.ai_status.as_str()
        ));
    }
}

impl Handler<NotesChanged> for NotesHeard {
    type Result = ();
    fn handle(&mut self, msg: NotesChanged, _: &mut Context<Self>) {
        self.0.lock().unwrap().push(format!("notes {}", msg.count));
    }
}

/// A round trip to the listener: what the hub passed on before it has been heard.
#[derive(Message)]
#[rtype(result = "()")]
struct Heard;

impl Handler<Heard> for NotesHeard {
    type Result = ();
    fn handle(&mut self, _: Heard, _: &mut Context<Self>) {}
}

/// Frames in the database's write-ahead log (each a page a commit wrote).
fn wal_frames(path: &std::path::Path) -> u64 {
    let wal = std::fs::metadata(path.with_extension("db-wal")).map_or(0, |m| m.len());
    // A 32-byte header, then frames of a 24-byte header and a page (4,096 bytes).
    wal.saturating_sub(32) / (24 + 4096)
}

#[actix_rt::test]
async fn captures_that_wait_together_share_one_commit_and_each_is_answered_and_announced() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("inkling.db");
    let store = Store::open(&path, EXPIRY_DAYS).unwrap();
    let hub = Mailbox::from(Hub::default().start());
    let heard = NotesHeard::default();
    let listener = heard.clone().start();
    hub.send(Subscribe(
        Mailbox::from(listener.clone()).recipient::<NoteChanged>(),
    ))
    .await
    .unwrap();
    let repository = RepositoryActor::start(store, path.clone(), hub.clone());
    let captures = Captures::default();
    let commit = |captures: &Captures| repository.send(CommitCaptures::new(captures.clone()));

    // One capture alone, twice (the first one writes the pages of an empty database):
    // what one commit writes to the log.
    for text in ["first", "alone"] {
        let queued = queue_all(&captures, [text]).remove(0);
        commit(&captures).await.unwrap();
        assert_eq!(queued.answered.await.unwrap().unwrap().body, text);
    }
    let before = wal_frames(&path);
    let alone = {
        let at = wal_frames(&path);
        let queued = queue_all(&captures, ["alone again"]).remove(0);
        commit(&captures).await.unwrap();
        queued.answered.await.unwrap().unwrap();
        wal_frames(&path) - at
    };
    assert!(alone > 0, "a commit writes to the log");

    // Five captures waiting when the repository comes to them: one message stores them
    // all, each answered with its own note; the messages of the other four find
    // nothing left to do.
    let answers = queue_all(&captures, (0..5).map(|i| format!("together {i}")));
    let at = wal_frames(&path);
    commit(&captures).await.unwrap();
    let together = wal_frames(&path) - at;
    let mut ids = Vec::new();
    for (i, queued) in answers.into_iter().enumerate() {
        let note = queued.answered.await.unwrap().unwrap();
        assert_eq!(note.body, format!("together {i}"));
        ids.push(note.id);
    }
    for _ in 0..4 {
        commit(&captures).await.unwrap();
    }
    assert_eq!(
        wal_frames(&path) - at,
        together,
        "the later messages wrote nothing"
    );
    assert!(
        together < 2 * alone,
        "five notes in one commit write about what one note does ({together} frames, one note {alone})"
    );
    assert!(before > 0);
    // Each note announced as a single capture's is (a round trip through the hub and
    // the listener: what was sent before has been heard).
    hub.send(CountsChanged {
        counts: Default::default(),
    })
    .await
    .unwrap();
    listener.send(Heard).await.unwrap();
    let together_heard: Vec<String> = heard
        .0
        .lock()
        .unwrap()
        .iter()
        .filter(|line| line.contains("together"))
        .cloned()
        .collect();
    assert_eq!(
        together_heard,
        (0..5)
            .map(|i| format!("note together {i} pending active"))
            .collect::<Vec<_>>()
    );

    let counts = repository
        .send(GetCounts { now: t0() })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(counts.pending, 8, "every note stored, each with its job");
    let listed = repository
        .send(ListNotes {
            filter: ListFilter::default(),
            now: t0(),
        })
        .await
        .unwrap()
        .unwrap();
    for id in &ids {
        assert!(listed.iter().any(|note| &note.id == id), "{id} listed");
    }
}

#[actix_rt::test]
async fn a_persons_writes_announce_the_notes_they_changed_and_only_when_they_did() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("inkling.db");
    let store = Store::open(&path, EXPIRY_DAYS).unwrap();
    let hub = Mailbox::from(Hub::default().start());
    let (heard, listener) = NotesHeard::listening(&hub).await;
    let repository = RepositoryActor::start(store, path, hub.clone());
    let now = t0();
    // What was heard since the last call: the repository sent it to the hub before
    // replying, the hub is first in, first out, and so is the listener.
    let since_last = || {
        let heard = heard.clone();
        let hub = hub.clone();
        let listener = listener.clone();
        async move {
            hub.send(CountsChanged {
                counts: Default::default(),
            })
            .await
            .unwrap();
            listener.send(Heard).await.unwrap();
            std::mem::take(&mut *heard.0.lock().unwrap())
        }
    };

    let a = repository
        .send(CaptureNote {
            body: body("a"),
            now,
        })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(since_last().await, ["note a pending active"]);

    let edit = |text: &str| NoteEdit::parse(Some(text.into()), None, None, 65536).unwrap();
    let write = EditNote {
        id: a.id.clone(),
        edit: edit("a2"),
        now,
    };
    repository.send(write).await.unwrap().unwrap();
    assert_eq!(since_last().await, ["note a2 pending active"]);
    let unchanged = EditNote {
        id: a.id.clone(),
        edit: edit("a2"),
        now,
    };
    repository.send(unchanged).await.unwrap().unwrap();
    assert!(
        since_last().await.is_empty(),
        "nothing changed, nothing said"
    );

    // The worker's writes announce their note too (its `JobFailed` is the worker's).
    let failed = MarkAiFailed {
        note_id: a.id.clone(),
        error: "schema: x".into(),
        now,
    };
    repository.send(failed).await.unwrap().unwrap();
    assert_eq!(since_last().await, ["note a2 failed active"]);
    repository
        .send(RetryAllFailed { now })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(since_last().await, ["notes 1"]);
    repository
        .send(RetryAllFailed { now })
        .await
        .unwrap()
        .unwrap();
    assert!(since_last().await.is_empty(), "none requeued: no reload");

    let trash = || TrashNote {
        id: a.id.clone(),
        now,
    };
    repository.send(trash()).await.unwrap().unwrap();
    repository.send(trash()).await.unwrap().unwrap();
    assert_eq!(
        since_last().await,
        ["note a2 pending trashed"],
        "trashed once: the second changed nothing"
    );
    let restore = RestoreNote {
        id: a.id.clone(),
        now,
    };
    repository.send(restore).await.unwrap().unwrap();
    let keep = KeepNote {
        id: a.id.clone(),
        now,
    };
    repository.send(keep).await.unwrap().unwrap();
    assert_eq!(
        since_last().await,
        ["note a2 pending active", "note a2 pending active"]
    );

    repository.send(trash()).await.unwrap().unwrap();
    since_last().await;
    let delete = DeleteForever {
        id: a.id.clone(),
        now,
    };
    repository.send(delete).await.unwrap().unwrap();
    assert_eq!(since_last().await, ["notes 1"]);
    assert_eq!(
        repository.send(EmptyTrash { now }).await.unwrap().unwrap(),
        0
    );
    assert!(
        since_last().await.is_empty(),
        "an empty trash emptied: nothing"
    );
}

#[actix_rt::test]
async fn a_tag_rename_lets_a_capture_through_between_its_slices_and_says_when_it_is_done() {
    use inkling::actors::repository::RenameTag;
    use inkling::storage::RENAME_SLICE_NOTES;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("inkling.db");
    let mut store = Store::open(&path, EXPIRY_DAYS).unwrap();
    let total = 3 * RENAME_SLICE_NOTES;
    crate::tagged_notes(&mut store, total, &["recipes"]);
    let hub = Mailbox::from(Hub::default().start());
    let (heard, listener) = NotesHeard::listening(&hub).await;
    let repository = RepositoryActor::start(store, path, hub.clone());

    let (done, ended) = tokio::sync::oneshot::channel();
    let rename = RenameTag {
        from: "recipes".into(),
        to: "cooking".into(),
        now: t0(),
        done,
    };
    // Checked and recorded: the reply. The slices come after, each a message of its
    // own at the back of the mailbox.
    repository.send(rename).await.unwrap().unwrap();
    repository
        .send(CaptureNote {
            body: body("typed during the rename"),
            now: t0(),
        })
        .await
        .unwrap()
        .unwrap();
    let renamed = ended.await.unwrap().unwrap();
    assert_eq!((renamed.notes, renamed.merged), (total as u64, false));
    hub.send(CountsChanged {
        counts: Default::default(),
    })
    .await
    .unwrap();
    listener.send(Heard).await.unwrap();
    assert_eq!(
        *heard.0.lock().unwrap(),
        [
            "note typed during the rename pending active".to_string(),
            format!("notes {total}")
        ],
        "the capture was handled before the rename's last slice"
    );

    // A refusal is the reply, and nothing is begun.
    let (done, ended) = tokio::sync::oneshot::channel();
    let refused = repository
        .send(RenameTag {
            from: "recipes".into(),
            to: "x".into(),
            now: t0(),
            done,
        })
        .await
        .unwrap();
    assert!(matches!(
        refused,
        Err(inkling::storage::StoreError::NoSuchTag(_))
    ));
    assert!(ended.await.is_err(), "no end to hear of");
}

#[actix_rt::test]
async fn a_tag_rename_cut_short_by_a_crash_is_finished_when_the_repository_starts_again() {
    use inkling::actors::repository::ListTags;
    use inkling::storage::{RenameProgress, RENAME_SLICE_NOTES};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("inkling.db");
    let total = 3 * RENAME_SLICE_NOTES;
    {
        let mut store = Store::open(&path, EXPIRY_DAYS).unwrap();
        crate::tagged_notes(&mut store, total, &["recipes"]);
        let rename = store.begin_tag_rename("recipes", "cooking").unwrap();
        let progress = store
            .rename_tag_slice(rename, RENAME_SLICE_NOTES, t0())
            .unwrap();
        assert!(matches!(progress, RenameProgress::Going(_)));
        // The process dies here.
    }
    let store = Store::open(&path, EXPIRY_DAYS).unwrap();
    let hub = Mailbox::from(Hub::default().start());
    let repository = RepositoryActor::start(store, path.clone(), hub);
    // Each round trip through the mailbox lets the slice queued ahead of it run: the
    // three slices left (the last finds no note and drops the record) are done within
    // a few, the first of which may come before the actor's start queued the rename.
    let under_way = rusqlite::Connection::open(&path).unwrap();
    let mut round_trips = 0;
    let tags = loop {
        round_trips += 1;
        let tags: Vec<(String, u64)> = repository
            .send(ListTags { limit: None })
            .await
            .unwrap()
            .unwrap()
            .into_iter()
            .map(|t| (t.tag, t.count))
            .collect();
        let left: i64 = under_way
            .query_row("SELECT COUNT(*) FROM tag_renames", [], |r| r.get(0))
            .unwrap();
        if left == 0 || round_trips == 6 {
            break tags;
        }
    };
    assert_eq!(tags, [("cooking".to_string(), total as u64)]);
    assert!(round_trips <= 5, "{round_trips} round trips");
    let store = Store::open(&path, EXPIRY_DAYS).unwrap();
    assert!(store.unfinished_tag_renames().unwrap().is_empty());
    assert_eq!(store.invariant_violations().unwrap(), Vec::<String>::new());
}

/// The live feed follows the change log: what was written before the actor started is
/// no news, a vector saved is in the log but not on the page, and the log is read as
/// `GET /api/changes` reads it.
#[actix_rt::test]
async fn the_live_feed_follows_the_change_log_from_where_the_actor_started() {
    use inkling::actors::repository::{GetChanges, SaveVectors};
    use inkling::api::changes::ChangeKind;
    use inkling::storage::NoteVector;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("inkling.db");
    let mut store = Store::open(&path, EXPIRY_DAYS).unwrap();
    let before = store.capture(&body("before"), t0()).unwrap();
    let hub = Mailbox::from(Hub::default().start());
    let (heard, listener) = NotesHeard::listening(&hub).await;
    let repository = RepositoryActor::start(store, path, hub.clone());

    let vectors = SaveVectors {
        model: "m".into(),
        vectors: vec![NoteVector {
            note_id: before.id.clone(),
            body: before.body.clone(),
            vector: vec![1.0, 0.0],
        }],
        now: t0(),
    };
    assert_eq!(repository.send(vectors).await.unwrap().unwrap(), 1);
    let after = CaptureNote {
        body: body("after"),
        now: t0(),
    };
    repository.send(after).await.unwrap().unwrap();
    hub.send(NotesChanged { count: 0 }).await.unwrap();
    listener.send(Heard).await.unwrap();
    assert_eq!(
        *heard.0.lock().unwrap(),
        ["note after pending active", "notes 0"]
    );

    let log = repository
        .send(GetChanges {
            since: 0,
            limit: 10,
        })
        .await
        .unwrap()
        .unwrap();
    let kinds: Vec<(i64, ChangeKind)> = log.iter().map(|c| (c.seq, c.kind)).collect();
    assert_eq!(
        kinds,
        [
            (1, ChangeKind::Captured),
            (2, ChangeKind::Embedded),
            (3, ChangeKind::Captured)
        ]
    );
}
