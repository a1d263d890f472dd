//! Trashed notes are never processed; restored ones resume with their stored attempts.

use std::time::Duration;

use inkling::actors::ai_worker::GetWorkerStatus;

use crate::fake_ollama::Reply;
use crate::harness::{PausedSystem, Pipeline};

#[actix_rt::test(system = "PausedSystem")]
async fn a_trashed_note_is_never_sent_to_the_provider() {
    let mut p = Pipeline::start(&[]).await;
    p.fake.stop();
    let kept = p.capture("keep me").await;
    let trashed = p.capture("throw me away").await;
    p.run(p.services.inbox.trash(trashed.clone()))
        .await
        .unwrap();
    // The worker's failed call and the health check it asks for are over before the
    // server is back: otherwise a check still on its way finds it down after the
    // advance below began, its next look falls after that second, and the worker waits
    // out its 30 s park (seen under load once the worker also embeds notes).
    p.settle().await;

    p.fake.start().await;
    p.advance(Duration::from_secs(1)).await;
    p.settle_until("the kept note is done", |p| p.note(&kept).status == "done")
        .await;
    p.settle().await;

    assert_eq!(p.asked(), ["keep me"]);
    assert_eq!(
        p.note(&trashed).status,
        "pending",
        "still pending, in the trash"
    );
    let status = p.ask(&p.services.worker, GetWorkerStatus).await;
    assert_eq!(status.queued, 0, "the trashed job left the queue");
}

#[actix_rt::test(system = "PausedSystem")]
async fn a_restored_note_resumes_with_the_attempts_it_had() {
    let p = Pipeline::start(&[]).await;
    p.fake.set_default(Reply::InvalidJson);
    let id = p.capture("fails twice, is trashed, comes back").await;
    p.settle_until("attempt 1", |p| p.note(&id).job.is_some_and(|j| j.0 == 1))
        .await;
    p.advance(Duration::from_secs(30)).await;
    p.settle_until("attempt 2", |p| p.note(&id).job.is_some_and(|j| j.0 == 2))
        .await;
    p.run(p.services.inbox.trash(id.clone())).await.unwrap();
    p.advance(Duration::from_secs(120)).await; // its retry time passes in the trash
    assert_eq!(p.fake.calls().len(), 2, "not tried while in the trash");

    p.run(p.services.inbox.restore(id.clone())).await.unwrap();

    // Its third attempt is its last: it fails for good, not after three more.
    p.settle_until("failed", |p| p.note(&id).status == "failed")
        .await;
    assert_eq!(p.fake.calls().len(), 3);
}

#[actix_rt::test(system = "PausedSystem")]
async fn the_trash_is_purged_by_the_hourly_timer_once_past_its_retention() {
    // trash.retention_days = 30 (default).
    let p = Pipeline::start(&[]).await;
    let id = p.capture("goes away for good").await;
    p.settle_until("done", |p| p.note(&id).status == "done")
        .await;
    p.run(p.services.inbox.trash(id.clone())).await.unwrap();

    p.advance(Duration::from_secs(30 * 24 * 3600 - 3600)).await;
    assert_eq!(
        p.count_with_status("done"),
        1,
        "kept until its retention is over"
    );

    p.advance(Duration::from_secs(2 * 3600)).await;
    p.settle_until("purged", |p| p.count_with_status("done") == 0)
        .await;
}
