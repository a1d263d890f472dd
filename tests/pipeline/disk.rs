//! A full disk under the worker: answers that cannot be saved are not bought again and
//! again; the worker waits (longer each time), and picks up as soon as a capture shows
//! space has returned (issue #8, item 11).

use std::time::Duration;

use inkling::actors::ai_worker::GetWorkerStatus;
use inkling::api::worker::WorkerState;

use crate::harness::{PausedSystem, Pipeline};
use crate::small_disk::SmallDisk;

/// Waits (virtual time frozen) until the worker reports `storage_unavailable`: a call
/// in flight when the last answer was lost finishes first.
async fn storage_unavailable(p: &Pipeline) {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let status = p.ask(&p.services.worker, GetWorkerStatus).await;
        if matches!(status.state, WorkerState::StorageUnavailable { .. }) {
            return;
        }
        assert!(std::time::Instant::now() < deadline, "{status:?}");
        tokio::task::yield_now().await;
    }
}

#[actix_rt::test(system = "PausedSystem")]
async fn on_a_full_disk_the_worker_waits_instead_of_asking_for_answers_it_cannot_keep() {
    let disk = SmallDisk::mount(8 * 1024);
    let fake = crate::fake_ollama::FakeOllama::start_new().await;
    let mut p = Pipeline::start_with(fake, tempfile::tempdir_in(disk.path()).unwrap(), &[]).await;
    p.fake.stop();
    for i in 0..20 {
        p.capture(&format!("thought {i}")).await;
    }
    p.settle().await;

    disk.fill();
    p.fake.start().await;
    p.advance(Duration::from_secs(1)).await; // the monitor sees it back
    p.settle_until("the first answer", |p| !p.fake.calls().is_empty())
        .await;
    storage_unavailable(&p).await;

    // Ten minutes on a full disk: one call after each wait, and the waits grow (30, 60,
    // 120, 240 s, then 5 min): 4 calls, where one per note per 30 s would be 400.
    let before = p.fake.calls().len();
    for _ in 0..20 {
        p.advance(Duration::from_secs(30)).await;
    }
    let calls = p.fake.calls().len() - before;
    // Exactly 4 when each lost answer is handled within the settle after its call; a
    // loaded machine can only handle one later, which makes the next wait start later.
    assert!(
        (1..=4).contains(&calls),
        "{calls} provider calls for answers that could not be kept"
    );
    assert_eq!(p.count_with_status("done"), 0);

    // Space returns. The worker cannot see that by itself before its wait ends (here
    // four more minutes), but the next capture's write shows it: work resumes at once.
    disk.free();
    storage_unavailable(&p).await;
    p.capture("written once space returned").await;
    p.settle_until("all 21 done without waiting", |p| {
        p.count_with_status("done") == 21
    })
    .await;
    assert_eq!(p.count_with_status("failed"), 0);
    assert_eq!(
        p.max_attempts_spent(),
        0,
        "a lost answer is not a failed attempt"
    );
}

#[actix_rt::test(system = "PausedSystem")]
async fn an_answer_refused_for_another_reason_fails_only_its_own_note_after_three_attempts() {
    let mut p = Pipeline::start(&[]).await;
    p.fake.stop();
    let stuck = p.capture("the one that cannot be saved").await;
    let others = [p.capture("first").await, p.capture("second").await];
    p.settle().await;
    // Not the disk: this one note's save is refused (SQLITE_CONSTRAINT from a trigger).
    let database = rusqlite::Connection::open(p.settings.database_path()).unwrap();
    database
        .execute_batch(&format!(
            "CREATE TRIGGER refuse_one BEFORE UPDATE OF ai_status ON notes
             WHEN NEW.id = '{stuck}' AND NEW.ai_status = 'done'
             BEGIN SELECT RAISE(ABORT, 'refused'); END;"
        ))
        .unwrap();

    p.fake.start().await;
    p.advance(Duration::from_secs(1)).await;
    p.settle_until("the other two done", |p| {
        others.iter().all(|id| p.note(id).status == "done")
    })
    .await;
    let status = p.ask(&p.services.worker, GetWorkerStatus).await;
    assert!(
        !matches!(status.state, WorkerState::StorageUnavailable { .. }),
        "one refused note is not a disk problem: {status:?}"
    );

    // Each refused save counts an attempt like a failed call (default waits: 30 s, then
    // 120 s); after the third the note is failed, with the reason on it.
    let attempts = |p: &Pipeline| p.note(&stuck).job.map(|(attempts, _, _)| attempts);
    p.settle_until("the first refused save counted", |p| attempts(p) == Some(1))
        .await;
    p.advance(Duration::from_secs(31)).await;
    p.settle_until("the second counted", |p| attempts(p) == Some(2))
        .await;
    p.advance(Duration::from_secs(121)).await;
    p.settle_until("the refused note failed", |p| {
        p.note(&stuck).status == "failed"
    })
    .await;
    let error = p.note(&stuck).error.unwrap_or_default();
    assert!(
        error.starts_with("other: the answer could not be saved") && error.contains("refused"),
        "{error}"
    );
    let calls_for_stuck = |p: &Pipeline| {
        p.fake
            .calls()
            .iter()
            .filter(|call| {
                call.request
                    .to_string()
                    .contains("the one that cannot be saved")
            })
            .count()
    };
    assert_eq!(calls_for_stuck(&p), 3, "three answers bought, then no more");
    p.advance(Duration::from_secs(600)).await;
    assert_eq!(calls_for_stuck(&p), 3, "nothing more after it failed");

    // Once the cause is gone, the usual one-click retry finishes it.
    database.execute_batch("DROP TRIGGER refuse_one;").unwrap();
    let requeued = p.run(p.services.inbox.retry_all_failed()).await.unwrap();
    assert_eq!(requeued, 1);
    p.settle_until("the note done after the retry", |p| {
        p.note(&stuck).status == "done"
    })
    .await;
}
