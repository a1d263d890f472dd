//! The repository (docs/DESIGN.md, "Data"): the store's operations, its
//! invariants, its list filters, its index use, and the actor in front of it.

use std::sync::{Arc, Mutex};

use actix::prelude::*;
use chrono::{DateTime, Duration, Utc};
use inkling::actors::hub::{Hub, Subscribe};
use inkling::actors::mailbox::Mailbox;
use inkling::actors::repository::{
    CaptureNote, CountFailed, GetCounts, KeepNote, ListNotes, MarkAiFailed, RepositoryActor,
    RequeueAllFailed, RestoreNote, SaveEnrichment, TrashNote,
};
use inkling::domain::{AiStatus, Enrichment, ListFilter, Note, NoteBody, NoteEdit};
use inkling::events::{CountsChanged, FailedCountChanged, NotesChanged};
use inkling::storage::store::{
    COUNT_EXPIRED_SQL, COUNT_WITH_STATUS_SQL, DUE_JOBS_SQL, FIND_FAILED_IDS_SQL,
    INSERT_REQUEUED_JOBS_SQL, REQUEUE_FAILED_SQL,
};
use inkling::storage::{Store, StoreError, StoreResult, WaitReason};
use rusqlite::types::Value;

const EXPIRY_DAYS: u32 = 30;

fn t0() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-03-01T12:00:00Z")
        .unwrap()
        .with_timezone(&Utc)
}

fn store() -> Store {
    Store::open_in_memory(EXPIRY_DAYS).unwrap()
}

fn body(text: &str) -> NoteBody {
    NoteBody::parse(text.to_string(), 65536).unwrap()
}

/// Captures a note at `at` and returns its id.
fn capture(store: &mut Store, text: &str, at: DateTime<Utc>) -> String {
    store.capture(&body(text), at).unwrap().id
}

/// Saves an AI answer for the note's body as it is now (what the worker read).
fn save_answer(
    store: &mut Store,
    id: &str,
    enrichment: &Enrichment,
    at: DateTime<Utc>,
) -> StoreResult<Note> {
    let body = store.get(id)?.body;
    store.save_enrichment(id, &body, enrichment, at)
}

/// Captures a note and drives it to `failed` through the store's own operations.
fn failed_note(store: &mut Store, text: &str, at: DateTime<Utc>) -> String {
    let id = capture(store, text, at);
    store.mark_ai_failed(&id, "schema: bad JSON", at).unwrap();
    id
}

fn enrichment(tags: &[&str]) -> Enrichment {
    Enrichment {
        title: "A title".into(),
        tags: tags.iter().map(|t| t.to_string()).collect(),
        summary: "A summary.".into(),
        read_chars: None,
    }
}

fn job_row(store: &Store, id: &str) -> Option<(u32, String, Option<String>)> {
    store
        .connection()
        .query_row(
            "SELECT attempts, next_run_at, last_error FROM pending_jobs WHERE note_id = ?1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .ok()
}

fn assert_invariants(store: &Store) {
    assert_eq!(store.invariant_violations().unwrap(), Vec::<String>::new());
}

// ----- capture ---------------------------------------------------------------------

#[test]
fn a_captured_note_is_pending_with_exactly_one_job_due_now() {
    let mut store = store();
    let note = store.capture(&body("buy milk"), t0()).unwrap();
    assert_eq!(note.ai_status, AiStatus::Pending);
    assert_eq!(store.get(&note.id).unwrap(), note);
    let (attempts, next_run_at, last_error) = job_row(&store, &note.id).unwrap();
    assert_eq!((attempts, last_error), (0, None));
    assert_eq!(next_run_at, "2026-03-01T12:00:00.000Z");
    assert_eq!(store.due_jobs(t0()).unwrap()[0].note_id, note.id);
    assert_invariants(&store);
}

#[test]
fn an_unknown_id_is_not_found() {
    let mut store = store();
    assert!(matches!(store.get("nope"), Err(StoreError::NotFound(_))));
    assert!(matches!(
        store.set_next_run_at("nope", t0(), "x"),
        Err(StoreError::NotFound(_))
    ));
    assert!(matches!(
        store.increment_job_attempt("nope", t0(), "x"),
        Err(StoreError::NotFound(_))
    ));
    assert!(matches!(
        store.trash("nope", t0()),
        Err(StoreError::NotFound(_))
    ));
}

// ----- the repository's operations -----------------------------------------------------

#[test]
fn find_failed_ids_returns_only_failed_active_notes_newest_update_first() {
    let mut store = store();
    let older = failed_note(&mut store, "older failure", t0());
    let newer = failed_note(&mut store, "newer failure", t0() + Duration::minutes(1));
    let trashed = failed_note(&mut store, "trashed failure", t0());
    store.trash(&trashed, t0()).unwrap();
    capture(&mut store, "still pending", t0());
    let done = capture(&mut store, "done", t0());
    save_answer(&mut store, &done, &enrichment(&[]), t0()).unwrap();

    assert_eq!(store.find_failed_ids().unwrap(), vec![newer, older]);
}

#[test]
fn count_failed_and_count_pending_count_active_notes_only() {
    let mut store = store();
    failed_note(&mut store, "f1", t0());
    failed_note(&mut store, "f2", t0());
    let trashed = failed_note(&mut store, "f3", t0());
    store.trash(&trashed, t0()).unwrap();
    capture(&mut store, "p1", t0());
    let trashed_pending = capture(&mut store, "p2", t0());
    store.trash(&trashed_pending, t0()).unwrap();

    assert_eq!(store.count_failed().unwrap(), 2);
    assert_eq!(store.count_pending().unwrap(), 1);
}

#[test]
fn retry_all_failed_turns_every_failed_note_pending_with_a_fresh_job_in_one_go() {
    let mut store = store();
    let a = failed_note(&mut store, "a", t0());
    let b = failed_note(&mut store, "b", t0() + Duration::seconds(1));
    let now = t0() + Duration::hours(1);

    let ids = store.retry_all_failed(now).unwrap();

    let mut ids = ids;
    ids.sort();
    let mut expected = vec![a.clone(), b.clone()];
    expected.sort();
    assert_eq!(ids, expected);
    for id in [&a, &b] {
        let note = store.get(id).unwrap();
        assert_eq!(note.ai_status, AiStatus::Pending);
        assert_eq!(note.ai_error, None);
        assert_eq!(note.updated_at, "2026-03-01T13:00:00.000Z");
        assert_eq!(
            job_row(&store, id).unwrap(),
            (0, "2026-03-01T13:00:00.000Z".into(), None)
        );
    }
    assert_eq!(store.count_failed().unwrap(), 0);
    assert_invariants(&store);
}

#[test]
fn retry_all_failed_rolls_back_entirely_when_it_cannot_finish() {
    let mut store = store();
    let a = failed_note(&mut store, "a", t0());
    let b = failed_note(&mut store, "b", t0());
    // Sabotage: the second statement of the transaction (the job rows) fails, after
    // the first has already turned the notes pending.
    store
        .connection()
        .execute_batch(
            "CREATE TRIGGER sabotage BEFORE INSERT ON pending_jobs
             BEGIN SELECT RAISE(ABORT, 'sabotaged'); END;",
        )
        .unwrap();

    assert!(store.retry_all_failed(t0()).is_err());

    // Nothing half-done: no job rows were left behind, both notes are still failed.
    for id in [&a, &b] {
        assert_eq!(store.get(id).unwrap().ai_status, AiStatus::Failed);
        assert_eq!(job_row(&store, id), None);
    }
    assert_invariants(&store);
}

#[test]
fn retry_all_failed_with_nothing_failed_returns_empty_and_writes_nothing() {
    let mut store = store();
    let pending = capture(&mut store, "p", t0());
    let changes_before = store.connection().total_changes();

    assert!(store
        .retry_all_failed(t0() + Duration::hours(1))
        .unwrap()
        .is_empty());

    assert_eq!(store.connection().total_changes(), changes_before);
    assert_eq!(
        store.get(&pending).unwrap().updated_at,
        "2026-03-01T12:00:00.000Z"
    );
}

#[test]
fn retry_all_failed_keeps_an_existing_job_row_instead_of_failing() {
    let mut store = store();
    let id = failed_note(&mut store, "raced", t0());
    // A job row a racing enqueue left behind (outside the invariants on purpose).
    store
        .connection()
        .execute(
            "INSERT INTO pending_jobs (note_id, attempts, next_run_at, last_error)
             VALUES (?1, 2, '2026-03-01T12:05:00.000Z', 'earlier')",
            [&id],
        )
        .unwrap();

    assert_eq!(store.retry_all_failed(t0()).unwrap(), vec![id.clone()]);

    assert_eq!(
        job_row(&store, &id).unwrap(),
        (2, "2026-03-01T12:05:00.000Z".into(), Some("earlier".into()))
    );
    assert_eq!(store.get(&id).unwrap().ai_status, AiStatus::Pending);
    assert_invariants(&store);
}

#[test]
fn set_next_run_at_changes_the_time_and_error_but_never_attempts() {
    let mut store = store();
    let id = capture(&mut store, "n", t0());
    store
        .increment_job_attempt(&id, t0() + Duration::seconds(30), "schema: x")
        .unwrap();
    store
        .increment_job_attempt(&id, t0() + Duration::seconds(120), "schema: y")
        .unwrap();

    store
        .set_next_run_at(&id, t0() + Duration::minutes(15), "unreachable: refused")
        .unwrap();

    assert_eq!(
        job_row(&store, &id).unwrap(),
        (
            2,
            "2026-03-01T12:15:00.000Z".into(),
            Some("unreachable: refused".into())
        )
    );
    let job = &store.all_jobs().unwrap()[0];
    assert_eq!(job.wait_reason, Some(WaitReason::Provider));
}

#[test]
fn increment_job_attempt_counts_and_marks_the_job_as_waiting_out_its_own_delay() {
    let mut store = store();
    let id = capture(&mut store, "n", t0());
    assert_eq!(
        store
            .increment_job_attempt(&id, t0() + Duration::seconds(30), "schema: x")
            .unwrap(),
        1
    );
    let job = &store.all_jobs().unwrap()[0];
    assert_eq!(
        (job.attempts, job.wait_reason),
        (1, Some(WaitReason::Retry))
    );
    assert!(
        store.due_jobs(t0()).unwrap().is_empty(),
        "not due before its time"
    );
    assert_eq!(
        store.due_jobs(t0() + Duration::seconds(30)).unwrap().len(),
        1
    );
}

#[test]
fn mark_ai_failed_sets_status_and_error_and_removes_the_job_together() {
    let mut store = store();
    let id = capture(&mut store, "n", t0());
    store.mark_ai_failed(&id, "other: HTTP 500", t0()).unwrap();
    let note = store.get(&id).unwrap();
    assert_eq!(note.ai_status, AiStatus::Failed);
    assert_eq!(note.ai_error.as_deref(), Some("other: HTTP 500"));
    assert_eq!(job_row(&store, &id), None);
    assert_invariants(&store);
}

#[test]
fn save_enrichment_stores_the_output_marks_done_and_removes_the_job() {
    let mut store = store();
    let id = capture(&mut store, "n", t0());
    save_answer(
        &mut store,
        &id,
        &enrichment(&["work", "ideas", "work"]),
        t0(),
    )
    .unwrap();
    let note = store.get(&id).unwrap();
    assert_eq!(note.ai_status, AiStatus::Done);
    assert_eq!(note.title.as_deref(), Some("A title"));
    assert_eq!(note.summary.as_deref(), Some("A summary."));
    assert_eq!(job_row(&store, &id), None);
    let filter = ListFilter {
        tag: Some("work".into()),
        ..ListFilter::default()
    };
    assert_eq!(store.list(&filter, t0()).unwrap().len(), 1);
    assert_invariants(&store);
}

// ----- trash: never processed, counted or retried ----------------------------------

#[test]
fn a_trashed_note_is_never_due_counted_listed_as_active_or_retried_until_restored() {
    let mut store = store();
    let pending = capture(&mut store, "pending", t0());
    let failed = failed_note(&mut store, "failed", t0());
    store.trash(&pending, t0()).unwrap();
    store.trash(&failed, t0()).unwrap();

    assert!(store.due_jobs(t0() + Duration::days(1)).unwrap().is_empty());
    assert!(store.all_jobs().unwrap().is_empty());
    assert_eq!(store.counts(t0()).unwrap().pending, 0);
    assert_eq!(store.count_failed().unwrap(), 0);
    assert!(store.list(&ListFilter::default(), t0()).unwrap().is_empty());
    assert!(store.retry_all_failed(t0()).unwrap().is_empty());
    assert_eq!(store.get(&failed).unwrap().ai_status, AiStatus::Failed);
    let trash = ListFilter {
        trash: true,
        ..ListFilter::default()
    };
    assert_eq!(store.list(&trash, t0()).unwrap().len(), 2);
    assert_invariants(&store);

    store.restore(&pending, t0()).unwrap();
    assert_eq!(store.due_jobs(t0()).unwrap()[0].note_id, pending);
    assert_eq!(store.count_pending().unwrap(), 1);
}

#[test]
fn purge_trash_deletes_only_old_trash_with_its_jobs_and_tags() {
    let mut store = store();
    let old = capture(&mut store, "old", t0());
    let recent = capture(&mut store, "recent", t0());
    let active = capture(&mut store, "active", t0());
    store.trash(&old, t0()).unwrap();
    store.trash(&recent, t0() + Duration::days(20)).unwrap();

    let purged = store.purge_trash(t0() + Duration::days(10)).unwrap();

    assert_eq!(purged, 1);
    assert!(matches!(store.get(&old), Err(StoreError::NotFound(_))));
    assert!(store.get(&recent).is_ok());
    assert!(store.get(&active).is_ok());
    assert_eq!(job_row(&store, &old), None);
    assert_invariants(&store);
}

// ----- list filters and expiry -------------------------------------------------------

#[test]
fn lists_filter_by_status_tag_trash_and_expiry_newest_first() {
    let mut store = store();
    let old = capture(&mut store, "old", t0());
    let old_kept = capture(&mut store, "old but kept", t0() + Duration::seconds(1));
    store.keep(&old_kept, t0()).unwrap();
    let tagged = capture(&mut store, "tagged", t0() + Duration::days(40));
    save_answer(
        &mut store,
        &tagged,
        &enrichment(&["rust"]),
        t0() + Duration::days(40),
    )
    .unwrap();
    let failed = failed_note(&mut store, "failed", t0() + Duration::days(41));
    let trashed = capture(&mut store, "trashed", t0() + Duration::days(42));
    store.trash(&trashed, t0() + Duration::days(42)).unwrap();
    let now = t0() + Duration::days(45);

    let ids = |filter: ListFilter| -> Vec<String> {
        store
            .list(&filter, now)
            .unwrap()
            .into_iter()
            .map(|n| n.id)
            .collect()
    };
    assert_eq!(
        ids(ListFilter::default()),
        vec![
            failed.clone(),
            tagged.clone(),
            old_kept.clone(),
            old.clone()
        ]
    );
    assert_eq!(
        ids(ListFilter {
            status: Some(AiStatus::Failed),
            ..Default::default()
        }),
        vec![failed.clone()]
    );
    assert_eq!(
        ids(ListFilter {
            tag: Some("rust".into()),
            ..Default::default()
        }),
        vec![tagged.clone()]
    );
    assert_eq!(
        ids(ListFilter {
            trash: true,
            ..Default::default()
        }),
        vec![trashed]
    );
    assert_eq!(
        ids(ListFilter {
            expired: true,
            ..Default::default()
        }),
        vec![old.clone()],
        "kept and recent notes are not expired"
    );
    assert_eq!(store.count_expired(now).unwrap(), 1);
    assert_eq!(store.count_expired(t0() + Duration::days(29)).unwrap(), 0);
}

#[test]
fn lists_page_with_a_keyset_cursor() {
    let mut store = store();
    let ids: Vec<String> = (0..5)
        .map(|i| capture(&mut store, &format!("n{i}"), t0() + Duration::seconds(i)))
        .collect();
    let page = |before: Option<String>| -> Vec<String> {
        let filter = ListFilter {
            limit: Some(2),
            before,
            ..Default::default()
        };
        store
            .list(&filter, t0())
            .unwrap()
            .into_iter()
            .map(|n| n.id)
            .collect()
    };
    let first = page(None);
    assert_eq!(first, vec![ids[4].clone(), ids[3].clone()]);
    let second = page(first.last().cloned());
    assert_eq!(second, vec![ids[2].clone(), ids[1].clone()]);
    let third = page(second.last().cloned());
    assert_eq!(third, vec![ids[0].clone()]);
}

// ----- indexes -------------------------------------------------------------------

/// Asserts the plan reads `table` through an index, never by a full scan.
fn assert_uses_index(store: &Store, what: &str, sql: &str, args: &[Value]) {
    let plan = store.query_plan(sql, args).unwrap();
    let text = plan.join(" | ");
    assert!(
        plan.iter().any(|step| step.contains("USING INDEX")
            || step.contains("USING COVERING INDEX")
            || step.contains("USING PRIMARY KEY")),
        "{what} uses no index: {text}"
    );
    assert!(
        !plan
            .iter()
            .any(|step| step.starts_with("SCAN") && !step.contains("INDEX")),
        "{what} scans a table: {text}"
    );
}

#[test]
fn counts_failed_ids_due_jobs_and_tag_lists_use_an_index() {
    let mut store = store();
    // Notes captured over 100 days, a few failed, the expiry cutoff 30 days back. The
    // service never runs ANALYZE, so these are the plans it really gets.
    for day in 0..100 {
        for i in 0..5 {
            let id = capture(
                &mut store,
                &format!("n{day}-{i}"),
                t0() + Duration::days(day),
            );
            if i == 0 && day % 10 == 0 {
                store.mark_ai_failed(&id, "x", t0()).unwrap();
            } else if i < 4 {
                save_answer(&mut store, &id, &enrichment(&["t"]), t0()).unwrap();
            }
        }
    }
    let now = t0() + Duration::days(100);
    let cutoff = Value::Text("2026-05-11T12:00:00.000Z".into());

    assert_uses_index(
        &store,
        "count_failed",
        COUNT_WITH_STATUS_SQL,
        &[Value::Text("failed".into())],
    );
    assert_uses_index(&store, "find_failed_ids", FIND_FAILED_IDS_SQL, &[]);
    let stamp = [Value::Text(inkling::domain::timestamp(now))];
    assert_uses_index(
        &store,
        "retry_all_failed, update",
        REQUEUE_FAILED_SQL,
        &stamp,
    );
    assert_uses_index(
        &store,
        "retry_all_failed, jobs",
        INSERT_REQUEUED_JOBS_SQL,
        &stamp,
    );
    assert_uses_index(&store, "count_expired", COUNT_EXPIRED_SQL, &[cutoff]);
    assert_uses_index(
        &store,
        "due_jobs",
        DUE_JOBS_SQL,
        &[Value::Text(inkling::domain::timestamp(now))],
    );
    let by_tag = ListFilter {
        tag: Some("rust".into()),
        ..Default::default()
    };
    let (sql, args) = store.list_query(&by_tag, now).unwrap();
    assert_uses_index(&store, "list by tag", &sql, &args);
    let (sql, args) = store.list_query(&ListFilter::default(), now).unwrap();
    assert_uses_index(&store, "list", &sql, &args);
}

// ----- a full disk -----------------------------------------------------------------

#[test]
fn a_full_database_refuses_a_capture_cleanly_and_recovers_when_space_returns() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("inkling.db"), EXPIRY_DAYS).unwrap();
    let kept = capture(&mut store, "before the disk filled", t0());
    let pages: i64 = store
        .connection()
        .query_row("PRAGMA page_count", [], |r| r.get(0))
        .unwrap();
    store
        .connection()
        .pragma_update(None, "max_page_count", pages)
        .unwrap();

    let big = "x".repeat(60_000);
    let err = store.capture(&body(&big), t0()).unwrap_err();

    assert!(matches!(err, StoreError::Full(_)), "{err:?}");
    assert_eq!(store.list(&ListFilter::default(), t0()).unwrap().len(), 1);
    assert!(store.get(&kept).is_ok());
    assert_invariants(&store);
    store
        .connection()
        .pragma_update(None, "max_page_count", 1_000_000)
        .unwrap();
    assert!(store.capture(&body(&big), t0()).is_ok());
    assert_invariants(&store);
}

// ----- the actor -------------------------------------------------------------------

#[actix_rt::test]
async fn the_actor_serves_every_message_in_order_from_its_own_thread() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("inkling.db");
    let store = Store::open(&path, EXPIRY_DAYS).unwrap();
    let hub = Mailbox::from(Hub::default().start());
    let repository = RepositoryActor::start(store, path, EXPIRY_DAYS, hub);

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
        .send(RequeueAllFailed { now: t0() })
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
    let repository = RepositoryActor::start(store, path, EXPIRY_DAYS, hub.clone());
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
    write_then_check!(RequeueAllFailed { now });
    assert_eq!(last_heard("counts").await.unwrap(), "counts 2 0 0");

    // Announced only when they moved: a read that finds them as they were says nothing.
    let heard = announced.0.lock().unwrap().len();
    repository.send(GetCounts { now }).await.unwrap().unwrap();
    last_heard("counts").await;
    assert_eq!(announced.0.lock().unwrap().len(), heard);
}

#[test]
fn trash_expired_moves_every_expired_note_and_nothing_else() {
    let mut store = store();
    let old = capture(&mut store, "old", t0());
    let old_kept = capture(&mut store, "old, kept", t0());
    store.keep(&old_kept, t0()).unwrap();
    let recent = capture(&mut store, "recent", t0() + Duration::days(20));
    let now = t0() + Duration::days(31);

    assert_eq!(store.trash_expired(now).unwrap(), vec![old.clone()]);

    assert!(store.get(&old).unwrap().deleted_at.is_some());
    assert!(store.get(&old_kept).unwrap().deleted_at.is_none());
    assert!(store.get(&recent).unwrap().deleted_at.is_none());
    assert_eq!(store.count_expired(now).unwrap(), 0);
    assert_invariants(&store);
}

// ----- search ----------------------------------------------------------------------------

fn search(store: &Store, text: &str, filter: &ListFilter) -> Vec<String> {
    let query = inkling::storage::SearchQuery::parse(text).unwrap();
    store
        .search(&query, filter, t0())
        .unwrap()
        .into_iter()
        .map(|hit| hit.note.id)
        .collect()
}

fn enriched(title: &str, tags: &[&str]) -> Enrichment {
    Enrichment {
        title: title.into(),
        tags: tags.iter().map(|t| t.to_string()).collect(),
        summary: "A summary.".into(),
        read_chars: None,
    }
}

#[test]
fn search_ranks_a_title_match_over_a_tag_over_the_body_and_ties_newest_first() {
    let mut store = store();
    let in_body_old = capture(&mut store, "a soup with tomatoes", t0());
    let in_body_new = capture(&mut store, "tomatoes again", t0() + Duration::minutes(1));
    let in_tags = capture(&mut store, "dinner plans", t0());
    save_answer(
        &mut store,
        &in_tags,
        &enriched("Dinner", &["tomatoes"]),
        t0(),
    )
    .unwrap();
    let in_title = capture(&mut store, "what to plant", t0());
    save_answer(
        &mut store,
        &in_title,
        &enriched("Tomatoes for the garden", &["garden"]),
        t0(),
    )
    .unwrap();
    capture(&mut store, "nothing red here", t0());

    let all = ListFilter::default();
    // The beginning of a word finds it; case does not matter.
    assert_eq!(
        search(&store, "TOMAT", &all),
        [
            in_title.clone(),
            in_tags.clone(),
            in_body_new.clone(),
            in_body_old.clone()
        ]
    );
    // Every word must be there.
    assert_eq!(
        search(&store, "tomatoes soup", &all),
        std::slice::from_ref(&in_body_old)
    );
    assert!(search(&store, "tomatoes zucchini", &all).is_empty());
    assert_invariants(&store);
}

#[test]
fn search_matches_inside_words_in_scripts_without_spaces_and_short_words_too() {
    let mut store = store();
    let apples = capture(&mut store, "오늘은 사과를 샀다", t0());
    let pie = capture(&mut store, "사과파이 만들기", t0() + Duration::minutes(1));
    capture(&mut store, "배를 샀다", t0());
    let all = ListFilter::default();
    // Two syllables: no trigram, matched all the same.
    assert_eq!(search(&store, "사과", &all), [pie.clone(), apples.clone()]);
    // Three: through the index, inside a longer word.
    assert_eq!(search(&store, "사과파", &all), std::slice::from_ref(&pie));
    assert_eq!(search(&store, "샀다 사과", &all), [apples]);
    // Nothing the user types is query syntax.
    for odd in ["\"", "a*", "NOT", "(", "title:x", "50%", "_"] {
        assert!(search(&store, odd, &all).is_empty(), "{odd}");
    }
}

#[test]
fn search_combines_with_status_tag_and_trash_and_never_shows_a_stale_or_trashed_note() {
    let mut store = store();
    let pending = capture(&mut store, "call the plumber", t0());
    let done = capture(&mut store, "plumber invoice", t0());
    save_answer(&mut store, &done, &enriched("Invoice", &["house"]), t0()).unwrap();
    let trashed = capture(&mut store, "plumber was late", t0());
    store.trash(&trashed, t0()).unwrap();

    let filter = |status, tag: Option<&str>, trash| ListFilter {
        status,
        tag: tag.map(str::to_string),
        trash,
        ..ListFilter::default()
    };
    assert_eq!(
        search(
            &store,
            "plumber",
            &filter(Some(AiStatus::Pending), None, false)
        ),
        std::slice::from_ref(&pending)
    );
    assert_eq!(
        search(&store, "plumber", &filter(None, Some("house"), false)),
        std::slice::from_ref(&done)
    );
    assert_eq!(
        search(&store, "plumber", &filter(None, None, true)),
        std::slice::from_ref(&trashed)
    );
    assert!(!search(&store, "plumber", &ListFilter::default()).contains(&trashed));

    // The enrichment's title is searchable at once, in the same write.
    assert_eq!(
        search(&store, "invoice", &ListFilter::default()),
        std::slice::from_ref(&done)
    );
    // A note deleted for good (the trash purge) is gone from the index.
    store.purge_trash(t0() + Duration::days(1)).unwrap();
    assert!(search(&store, "late", &filter(None, None, true)).is_empty());
    assert_invariants(&store);
}

#[test]
fn a_hits_snippet_marks_the_words_in_its_body() {
    let mut store = store();
    capture(
        &mut store,
        "First line.\nThen the tomatoes, and more tomatoes.",
        t0(),
    );
    let query = inkling::storage::SearchQuery::parse("tomato").unwrap();
    let hits = store.search(&query, &ListFilter::default(), t0()).unwrap();
    let marked = inkling::storage::search::bracketed(&hits[0].snippet);
    assert_eq!(
        marked,
        "First line. Then the [tomato]es, and more [tomato]es."
    );
}

#[test]
fn notes_stored_before_search_existed_are_found_after_the_upgrade() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("inkling.db");
    {
        // A database as the release before search left it: migrations 1 and 2.
        let mut conn = rusqlite::Connection::open(&path).unwrap();
        inkling::storage::migrations::migrate(
            &mut conn,
            &inkling::storage::migrations::MIGRATIONS[..2],
        )
        .unwrap();
        conn.execute(
            "INSERT INTO notes (id, body, title, tags, ai_status, created_at, updated_at)
             VALUES ('old', 'an old thought about kimchi', 'Fermenting', '[\"food\"]', 'done',
                     '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')",
            [],
        )
        .unwrap();
    }
    let store = Store::open(&path, EXPIRY_DAYS).unwrap();
    let all = ListFilter::default();
    assert_eq!(search(&store, "kimchi", &all), ["old"]);
    assert_eq!(search(&store, "ferment", &all), ["old"]);
    assert_eq!(search(&store, "food", &all), ["old"]);
    assert_invariants(&store);
}

#[test]
fn a_filtered_search_is_exact_even_when_its_hits_rank_below_the_first_candidates() {
    let mut store = store();
    let mut trashed = Vec::new();
    let mut failed = Vec::new();
    for i in 0..260 {
        // Longer bodies rank lower: the filtered ones rank last of all.
        let id = if i < 10 {
            capture(
                &mut store,
                &format!("tomato {i} {}", "and more words ".repeat(20)),
                t0(),
            )
        } else {
            capture(&mut store, &format!("tomato {i}"), t0())
        };
        if i < 5 {
            store.trash(&id, t0()).unwrap();
            trashed.push(id);
        } else if i < 10 {
            store.mark_ai_failed(&id, "schema: bad", t0()).unwrap();
            failed.push(id);
        }
    }
    let mut found = search(
        &store,
        "tomato",
        &ListFilter {
            trash: true,
            ..ListFilter::default()
        },
    );
    found.sort();
    trashed.sort();
    assert_eq!(found, trashed);
    let mut found = search(
        &store,
        "tomato",
        &ListFilter {
            status: Some(AiStatus::Failed),
            ..ListFilter::default()
        },
    );
    found.sort();
    failed.sort();
    assert_eq!(found, failed);
    assert_eq!(search(&store, "tomato", &ListFilter::default()).len(), 50);
}

// ----- one note's AI again -------------------------------------------------------------

#[test]
fn asking_for_a_notes_ai_again_makes_it_pending_at_the_front_with_attempts_zero() {
    let mut store = store();
    let older = capture(&mut store, "waiting since morning", t0());
    let newer = capture(&mut store, "waiting since noon", t0() + Duration::hours(1));
    let done = capture(&mut store, "done already", t0());
    save_answer(&mut store, &done, &enriched("Kept title", &["kept"]), t0()).unwrap();
    let failed = failed_note(&mut store, "failed already", t0());
    let later = t0() + Duration::hours(2);

    // Done: pending again, its AI output kept until replaced, next in line.
    let (note, was) = store.request_enrichment(&done, later).unwrap();
    assert_eq!((was, note.ai_status), (AiStatus::Done, AiStatus::Pending));
    assert_eq!(note.title.as_deref(), Some("Kept title"));
    let due = store.due_jobs(later).unwrap();
    assert_eq!(due[0].note_id, done, "at the front");
    assert_eq!(job_row(&store, &done).unwrap().0, 0);

    // Failed: its error goes, attempts start again.
    store
        .increment_job_attempt(&newer, later, "schema: x")
        .unwrap();
    let (note, was) = store.request_enrichment(&failed, later).unwrap();
    assert_eq!(
        (was, note.ai_status, note.ai_error),
        (AiStatus::Failed, AiStatus::Pending, None)
    );
    assert_eq!(store.due_jobs(later).unwrap()[0].note_id, failed);

    // Pending: the same job, attempts back to 0, moved to the front.
    let (_, was) = store.request_enrichment(&newer, later).unwrap();
    assert_eq!(was, AiStatus::Pending);
    assert_eq!(job_row(&store, &newer).unwrap().0, 0);
    let order: Vec<String> = store
        .due_jobs(later)
        .unwrap()
        .into_iter()
        .map(|j| j.note_id)
        .collect();
    assert_eq!(order[0], newer);
    assert!(order.contains(&older));
    assert_invariants(&store);

    // In the trash: restore first. Unknown: not found. Nothing changed by either.
    store.trash(&older, later).unwrap();
    assert!(matches!(
        store.request_enrichment(&older, later),
        Err(StoreError::Conflict(_))
    ));
    assert!(matches!(
        store.request_enrichment("nope", later),
        Err(StoreError::NotFound(_))
    ));
    assert_invariants(&store);
}

#[test]
fn a_search_reads_the_index_and_joins_its_candidates_by_key() {
    let mut store = store();
    for i in 0..300 {
        let id = capture(&mut store, &format!("tomato note {i}"), t0());
        if i % 3 == 0 {
            save_answer(&mut store, &id, &enriched("Title", &["t"]), t0()).unwrap();
        }
    }
    let query = inkling::storage::SearchQuery::parse("tomato").unwrap();
    for filter in [
        ListFilter::default(),
        ListFilter {
            tag: Some("t".into()),
            ..ListFilter::default()
        },
        ListFilter {
            trash: true,
            status: Some(AiStatus::Done),
            ..ListFilter::default()
        },
    ] {
        for candidates in [Some(200), None] {
            let (sql, args) = store.search_query(&query, &filter, t0(), candidates);
            let plan = store.query_plan(&sql, &args).unwrap();
            let text = plan.join(" | ");
            assert!(
                plan.iter().any(|s| s.contains("VIRTUAL TABLE INDEX")),
                "the match goes through the FTS5 index: {text}"
            );
            assert!(
                !plan.iter().any(|s| {
                    let mut words = s.split_whitespace();
                    words.next() == Some("SCAN") && matches!(words.next(), Some("k" | "n" | "t"))
                }),
                "the notes and keys are looked up, not scanned: {text}"
            );
        }
    }
}

// ----- editing and tags --------------------------------------------------------------

fn edit(body: Option<&str>, title: Option<&str>, tags: Option<&[&str]>) -> NoteEdit {
    NoteEdit::parse(
        body.map(String::from),
        title.map(String::from),
        tags.map(|tags| tags.iter().map(|t| t.to_string()).collect()),
        65536,
    )
    .unwrap()
}

fn tag_counts(store: &Store) -> Vec<(String, u64)> {
    store
        .tags(None)
        .unwrap()
        .into_iter()
        .map(|t| (t.tag, t.count))
        .collect()
}

#[test]
fn a_changed_body_sends_a_done_note_back_to_pending_with_a_fresh_job_and_the_same_body_does_not() {
    let mut store = store();
    let id = capture(&mut store, "first", t0());
    save_answer(&mut store, &id, &enrichment(&["a"]), t0()).unwrap();

    let same = store
        .edit(
            &id,
            &edit(Some("first"), None, None),
            t0() + Duration::seconds(1),
        )
        .unwrap();
    assert!(!same.changed, "the same body is no change");
    assert_eq!(same.note.ai_status, AiStatus::Done);

    let later = t0() + Duration::seconds(2);
    let edited = store
        .edit(&id, &edit(Some("second"), None, None), later)
        .unwrap();
    assert!(edited.changed && edited.body_changed);
    assert_eq!(edited.was, AiStatus::Done);
    assert_eq!(edited.note.ai_status, AiStatus::Pending);
    assert_eq!(edited.note.body, "second");
    assert_eq!(
        edited.note.title.as_deref(),
        Some("A title"),
        "kept until replaced"
    );
    assert_eq!(job_row(&store, &id).map(|j| j.0), Some(0));
    assert_eq!(store.due_jobs(later).unwrap().len(), 1);
    assert_eq!(store.invariant_violations().unwrap(), Vec::<String>::new());

    // A failed note's job starts again from attempts 0 too.
    let failed = failed_note(&mut store, "fails", t0());
    let edited = store
        .edit(&failed, &edit(Some("fixed"), None, None), later)
        .unwrap();
    assert_eq!(
        (edited.note.ai_status, edited.note.ai_error),
        (AiStatus::Pending, None)
    );
    assert_eq!(job_row(&store, &failed).map(|j| j.0), Some(0));
    assert_eq!(store.invariant_violations().unwrap(), Vec::<String>::new());
}

#[test]
fn a_title_and_tags_set_by_hand_are_kept_from_the_ai_and_searchable_at_once() {
    let mut store = store();
    let id = capture(&mut store, "a note about stamps", t0());
    let edited = store
        .edit(
            &id,
            &edit(None, Some("Buy stamps"), Some(&["Post Office", "errands"])),
            t0(),
        )
        .unwrap();
    assert_eq!(
        edited.note.ai_status,
        AiStatus::Pending,
        "no body change: the job stays"
    );
    assert!(edited.note.title_set_by_user && edited.note.tags_set_by_user);

    let saved = save_answer(&mut store, &id, &enrichment(&["mail"]), t0()).unwrap();
    assert_eq!(saved.ai_status, AiStatus::Done);
    assert_eq!(saved.title.as_deref(), Some("Buy stamps"));
    assert_eq!(saved.tags, ["post office", "errands"]);
    assert_eq!(
        saved.summary.as_deref(),
        Some("A summary."),
        "the summary is the AI's"
    );
    assert_eq!(
        tag_counts(&store),
        [("errands".to_string(), 1), ("post office".to_string(), 1)],
        "the AI's tag was not stored"
    );
    let query = inkling::storage::SearchQuery::parse("stamps").unwrap();
    let hits = store.search(&query, &ListFilter::default(), t0()).unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(store.invariant_violations().unwrap(), Vec::<String>::new());
}

#[test]
fn an_answer_for_a_body_the_note_no_longer_has_is_refused_and_its_new_job_stays() {
    let mut store = store();
    let id = capture(&mut store, "old body", t0());
    store
        .edit(&id, &edit(Some("new body"), None, None), t0())
        .unwrap();
    let refused = store.save_enrichment(&id, "old body", &enrichment(&["x"]), t0());
    assert!(matches!(refused, Err(StoreError::Stale(_))), "{refused:?}");
    let note = store.get(&id).unwrap();
    assert_eq!((note.ai_status, note.title), (AiStatus::Pending, None));
    assert!(job_row(&store, &id).is_some());
    assert!(matches!(
        store.save_enrichment("nope", "x", &enrichment(&[]), t0()),
        Err(StoreError::NotFound(_))
    ));
    assert_eq!(store.invariant_violations().unwrap(), Vec::<String>::new());
}

#[test]
fn an_edit_of_a_note_in_the_trash_or_of_no_note_is_refused_and_writes_nothing() {
    let mut store = store();
    let id = capture(&mut store, "in the trash", t0());
    store.trash(&id, t0()).unwrap();
    let before = store.get(&id).unwrap();
    let refused = store.edit(
        &id,
        &edit(Some("changed"), Some("T"), None),
        t0() + Duration::seconds(1),
    );
    assert!(
        matches!(refused, Err(StoreError::Conflict(_))),
        "{refused:?}"
    );
    assert_eq!(store.get(&id).unwrap(), before);
    assert!(matches!(
        store.edit("nope", &edit(Some("x"), None, None), t0()),
        Err(StoreError::NotFound(_))
    ));
}

#[test]
fn tags_that_come_in_take_the_spelling_in_use_and_tags_are_counted_most_used_first() {
    let mut store = store();
    for (i, tags) in [
        &["machine learning", "food"][..],
        &["machine learning"],
        &["food"],
        &["food"],
    ]
    .iter()
    .enumerate()
    {
        let id = capture(&mut store, &format!("note {i}"), t0());
        save_answer(&mut store, &id, &enrichment(tags), t0()).unwrap();
    }
    let id = capture(&mut store, "another", t0());
    let saved = save_answer(
        &mut store,
        &id,
        &enrichment(&["machine-learning", "Food", "new"]),
        t0(),
    )
    .unwrap();
    assert_eq!(saved.tags, ["machine learning", "food", "new"]);
    let by_hand = capture(&mut store, "by hand", t0());
    let edited = store
        .edit(
            &by_hand,
            &edit(None, None, Some(&["Machine_Learning"])),
            t0(),
        )
        .unwrap();
    assert_eq!(edited.note.tags, ["machine learning"]);
    assert_eq!(
        tag_counts(&store),
        [
            ("food".to_string(), 4),
            ("machine learning".to_string(), 4),
            ("new".to_string(), 1)
        ]
    );
    // Notes in the trash are not counted.
    store.trash(&id, t0()).unwrap();
    assert_eq!(store.tags(Some(1)).unwrap()[0].count, 3);
}

#[test]
fn a_rename_changes_every_note_and_merges_into_a_tag_that_exists_in_one_go() {
    let mut store = store();
    let mut ids = Vec::new();
    for tags in [
        &["cooking"][..],
        &["cooking", "cooking tips"],
        &["cooking tips"],
    ] {
        let id = capture(&mut store, &format!("{tags:?}"), t0());
        save_answer(&mut store, &id, &enrichment(tags), t0()).unwrap();
        ids.push(id);
    }
    store.trash(&ids[2], t0()).unwrap();

    let renamed = store.rename_tag("cooking tips", "cooking", t0()).unwrap();
    assert_eq!(
        (renamed.tag.as_str(), renamed.notes, renamed.merged),
        ("cooking", 2, true)
    );
    assert_eq!(
        store.get(&ids[1]).unwrap().tags,
        ["cooking"],
        "merged, not doubled"
    );
    assert_eq!(
        store.get(&ids[2]).unwrap().tags,
        ["cooking"],
        "in the trash too"
    );
    assert_eq!(tag_counts(&store), [("cooking".to_string(), 2)]);

    let renamed = store.rename_tag("cooking", "food", t0()).unwrap();
    assert_eq!((renamed.notes, renamed.merged), (3, false));
    let query = inkling::storage::SearchQuery::parse("food").unwrap();
    assert_eq!(
        store
            .search(&query, &ListFilter::default(), t0())
            .unwrap()
            .len(),
        2
    );
    assert!(matches!(
        store.rename_tag("cooking", "x", t0()),
        Err(StoreError::NoSuchTag(_))
    ));
    assert_eq!(store.invariant_violations().unwrap(), Vec::<String>::new());

    // The counts follow restores and deletes for good (a cascade) too.
    store.restore(&ids[2], t0()).unwrap();
    assert_eq!(tag_counts(&store), [("food".to_string(), 3)]);
    store.trash(&ids[0], t0()).unwrap();
    store.delete_forever(&ids[0]).unwrap();
    assert_eq!(tag_counts(&store), [("food".to_string(), 2)]);
    assert_eq!(store.invariant_violations().unwrap(), Vec::<String>::new());
}
