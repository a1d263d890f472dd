//! Retry all failed notes (docs/DESIGN.md, "Retry-all").

use serde_json::json;

use crate::fake_ollama::Reply;
use crate::harness::{PausedSystem, Pipeline};

/// Immediate retries, so failing a note takes no virtual time.
const NO_WAITS: &[(&str, &str)] = &[("INKLING_WORKER__RETRY_BACKOFFS_MS", "0,0,0")];

#[actix_rt::test(system = "PausedSystem")]
async fn retry_all_requeues_every_failed_note_emits_once_and_the_notes_finish() {
    let p = Pipeline::start(NO_WAITS).await;
    p.fake.set_default(Reply::WrongSchema);
    let a = p.capture("a").await;
    let b = p.capture("b").await;
    p.settle_until("both failed", |p| p.count_with_status("failed") == 2)
        .await;
    p.settle_until("count announced", |p| {
        p.failed_counts.0.lock().unwrap().last() == Some(&2)
    })
    .await;

    p.fake.set_default(Reply::Ok);
    let count = p.run(p.services.inbox.retry_all_failed()).await.unwrap();

    assert_eq!(count, 2);
    p.settle_until("both done", |p| {
        p.note(&a).status == "done" && p.note(&b).status == "done"
    })
    .await;
    p.settle_until("retry logged", |p| {
        !p.events_of("ai_retry_manual").is_empty()
    })
    .await;
    assert_eq!(
        p.events_of("ai_retry_manual"),
        [json!({ "failedCount": 2 })]
    );
    assert_eq!(p.failed_counts.0.lock().unwrap().last(), Some(&0));
}

#[actix_rt::test(system = "PausedSystem")]
async fn retry_all_with_nothing_failed_returns_0_and_emits_nothing() {
    let p = Pipeline::start(NO_WAITS).await;
    let id = p.capture("fine").await;
    p.settle_until("done", |p| p.note(&id).status == "done")
        .await;
    p.settle().await;
    let announced_before = p.failed_counts.0.lock().unwrap().clone();

    let count = p.run(p.services.inbox.retry_all_failed()).await.unwrap();

    assert_eq!(count, 0);
    p.settle().await;
    assert!(p.events_of("ai_retry_manual").is_empty());
    assert_eq!(
        *p.failed_counts.0.lock().unwrap(),
        announced_before,
        "no failed count announced"
    );
}

#[actix_rt::test(system = "PausedSystem")]
async fn retry_all_during_an_outage_keeps_the_notes_pending_without_spending_attempts() {
    let mut p = Pipeline::start(NO_WAITS).await;
    p.fake.set_default(Reply::RunnerCrash);
    let id = p.capture("fails, then the provider goes away").await;
    p.settle_until("failed", |p| p.note(&id).status == "failed")
        .await;
    p.fake.stop();

    assert_eq!(p.run(p.services.inbox.retry_all_failed()).await.unwrap(), 1);

    p.settle_until("parked on the outage", |p| {
        p.note(&id)
            .job
            .is_some_and(|j| j.2.as_deref() == Some("provider"))
    })
    .await;
    let note = p.note(&id);
    assert_eq!((note.status.as_str(), note.job.unwrap().0), ("pending", 0));
}
