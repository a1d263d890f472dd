//! The AI queue: retries of failed notes, the worker's bookkeeping on a job, an answer
//! saved or refused, a failure, and one note's AI asked for again.

use chrono::Duration;
use inkling::domain::{AiStatus, ListFilter};
use inkling::storage::{StoreError, WaitReason};

use crate::{
    assert_invariants, capture, due, edit, enriched, enrichment, failed_note, job_row, save_answer,
    store, t0,
};

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
    assert!(due(&store, t0()).is_empty(), "not due before its time");
    assert_eq!(due(&store, t0() + Duration::seconds(30)).len(), 1);
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
    let first = due(&store, later);
    assert_eq!(first[0].note_id, done, "at the front");
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
    assert_eq!(due(&store, later)[0].note_id, failed);

    // Pending: the same job, attempts back to 0, moved to the front.
    let (_, was) = store.request_enrichment(&newer, later).unwrap();
    assert_eq!(was, AiStatus::Pending);
    assert_eq!(job_row(&store, &newer).unwrap().0, 0);
    let order: Vec<String> = due(&store, later).into_iter().map(|j| j.note_id).collect();
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
