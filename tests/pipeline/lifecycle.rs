//! Trashed notes are never processed; restored ones resume with their stored attempts.

use std::time::Duration;

use inkling::actors::ai_worker::GetWorkerStatus;
use inkling::actors::repository::GetChanges;
use inkling::storage::{Store, Verdict};

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

#[actix_rt::test(system = "PausedSystem")]
async fn the_hourly_upkeep_compacts_the_change_log_to_each_notes_newest_change() {
    let p = Pipeline::start(&[]).await;
    let a = p.capture("answered, then edited").await;
    let b = p.capture("answered").await;
    p.settle_until("both answered", |p| {
        p.note(&a).status == "done" && p.note(&b).status == "done"
    })
    .await;
    let edit = inkling::domain::NoteEdit::parse(Some("edited".into()), None, None, 65536).unwrap();
    p.run(p.services.inbox.edit(a.clone(), edit)).await.unwrap();
    // The edit asks for the AI again: its answer and vector come too.
    p.settle().await;
    let before = p.change_log();
    assert!(
        before.len() >= 5,
        "captured and answered each, a edited: {before:?}"
    );
    let newest = |note: &str| before.iter().rposition(|(id, _)| id == note).unwrap();
    let mut expected = [newest(&a), newest(&b)];
    expected.sort();

    // The round an hour on finds the changes younger than an hour (kept, for readers
    // of the log); the next one compacts them.
    p.advance(Duration::from_secs(3600)).await;
    assert_eq!(p.change_log(), before, "an hour old: not yet");
    p.advance(Duration::from_secs(3600)).await;
    p.settle_until("the log compacted", |p| p.change_log().len() == 2)
        .await;
    assert_eq!(
        p.change_log(),
        expected.map(|i| before[i].clone()),
        "each note's newest change, in order"
    );
}

/// The upkeep's writes would wait on the repository's thread for the check at start,
/// and every read queued behind them: it waits for the verdict before its first round.
#[actix_rt::test(system = "PausedSystem")]
async fn the_upkeep_waits_for_the_check_at_start_and_holds_no_read_up_meanwhile() {
    let dir = tempfile::tempdir().unwrap();
    let id = {
        let mut store = Store::open(&dir.path().join("inkling.db"), 30).unwrap();
        let body = inkling::domain::NoteBody::parse("the dentist".into(), 65536).unwrap();
        // Written by a last run a minute before this one starts: the clock at start is
        // in step with the database, so the first round's purge would write at once.
        let then = crate::harness::t0() - chrono::Duration::minutes(1);
        let id = store.capture(&body, then).unwrap().id;
        store.trash(&id, then).unwrap();
        id
    };
    // The harness's start settles: its round trips through the repository (reads)
    // are answered while the check is undecided.
    let (p, integrity) = Pipeline::start_while_checking(dir, &[]).await;
    let listed = p
        .ask(
            &p.services.repository,
            GetChanges {
                since: 0,
                limit: 10,
            },
        )
        .await
        .expect("a read is answered during the check");
    assert_eq!(listed.len(), 2, "captured, trashed: not compacted yet");

    integrity.decide(Verdict::Sound);
    // Its rounds go on once the file is sound: two hours on, the changes are old
    // enough to compact.
    p.advance(Duration::from_secs(2 * 3600)).await;
    p.settle_until("the upkeep's rounds, once the file is sound", |p| {
        p.change_log() == [(id.clone(), "trashed".to_string())]
    })
    .await;
}

/// A transient jump of the system clock ahead once purged the trash for good (a note
/// trashed a minute earlier was "older than 30 days") and dated a note captured
/// meanwhile 400 days ahead, where it stayed on top. Now the hourly purge that comes
/// during the jump deletes nothing, the note captured meanwhile is dated by the clock
/// carried on, and once the clock is back the purge goes by the real time again.
#[actix_rt::test(system = "PausedSystem")]
async fn a_transient_jump_of_the_clock_purges_nothing_and_dates_no_note_in_the_future() {
    let p = Pipeline::start(&[]).await;
    let trashed = p.capture("trashed a minute before the jump").await;
    p.run(p.services.inbox.trash(trashed.clone()))
        .await
        .unwrap();
    p.advance(Duration::from_secs(58 * 60)).await;

    p.clock.jump(chrono::Duration::days(400));
    // The hourly purge comes (at 60 minutes) while the clock is 400 days ahead.
    p.advance(Duration::from_secs(3 * 60)).await;
    let during = p.capture("captured during the jump").await;
    let created: String = p.note_column(&during, "created_at");
    // 61 minutes after the start (12:00), by the clock carried on.
    assert!(
        ("2026-03-01T13:01:00".."2026-03-01T13:02:00").contains(&created.as_str()),
        "dated by the clock carried on, not 400 days ahead: {created}"
    );
    p.advance(Duration::from_secs(3 * 60)).await;
    p.clock.jump(-chrono::Duration::days(400));
    p.advance(Duration::from_secs(3600)).await;

    let in_trash: Option<String> = p.note_column(&trashed, "deleted_at");
    assert!(in_trash.is_some(), "the trashed note is still in the trash");
    let newest: String = p
        .reader()
        .query_row("SELECT MAX(updated_at) FROM notes", [], |r| r.get(0))
        .unwrap();
    assert!(
        newest.as_str() < "2026-03-02",
        "nothing stored in the future: {newest}"
    );

    // Its real retention still ends it.
    p.advance(Duration::from_secs(30 * 24 * 3600)).await;
    p.settle_until("purged", |p| {
        p.reader()
            .query_row(
                "SELECT COUNT(*) FROM notes WHERE id = ?1",
                [&trashed],
                |r| r.get::<_, i64>(0),
            )
            .unwrap()
            == 0
    })
    .await;
}
