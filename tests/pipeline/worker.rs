//! The worker policy (docs/DESIGN.md, "The worker policy") end to end, on virtual time:
//! the real actors, the real client and a fake Ollama. Each rule is also unit-tested
//! on the pure core (`src/actors/ai_worker/core/`).

use std::time::Duration;

use serde_json::json;

use crate::fake_ollama::Reply;
use crate::harness::{seconds_until, PausedSystem, Pipeline};

const MS: Duration = Duration::from_millis(1);

fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

/// Waits until the note's job shows it parked on the provider with `wait` seconds to go.
async fn assert_parked_for(p: &Pipeline, id: &str, wait: f64) {
    p.settle_until(&format!("parked for {wait} s"), |p| {
        p.note(id).job.is_some_and(|(_, at, reason)| {
            reason.as_deref() == Some("provider")
                && (seconds_until(&p.clock, &at) - wait).abs() < 0.01
        })
    })
    .await;
}

#[actix_rt::test(system = "PausedSystem")]
async fn unreachable_is_retried_forever_30_60_120_240_480_900_capped_never_counted_or_failed() {
    let mut p = Pipeline::start(&[]).await;
    p.fake.stop();
    let id = p.capture("a thought while Ollama is off").await;

    for wait in [30, 60, 120, 240, 480, 900, 900, 900] {
        assert_parked_for(&p, &id, wait as f64).await;
        let parked = p.note(&id).job.unwrap().1;
        // Not a millisecond early ...
        p.advance(secs(wait) - MS).await;
        assert_eq!(p.note(&id).job.unwrap().1, parked, "probed before {wait} s");
        // ... and right on time: the next probe parks it again.
        p.advance(MS).await;
        p.settle_until("the next probe", |p| p.note(&id).job.unwrap().1 != parked)
            .await;
    }

    let note = p.note(&id);
    assert_eq!(note.status, "pending");
    assert_eq!(note.job.unwrap().0, 0, "attempts never counted");
    assert!(p.events_of("ai_failed").is_empty());
    assert_eq!(p.count_with_status("failed"), 0);
}

#[actix_rt::test(system = "PausedSystem")]
async fn a_timeout_with_ollama_gone_takes_the_same_path_as_unreachable() {
    let mut p = Pipeline::start(&[]).await;
    p.fake.set_default(Reply::Hang);
    let id = p.capture("Ollama dies while it reads this").await;
    p.settle_until("the call is made", |p| p.fake.calls().len() == 1)
        .await;
    // The server goes away with the call in it (the held connection stays open).
    p.fake.stop();

    // Our deadline (ollama.request_timeout_ms = 120 s) expires; the health check finds
    // nobody: parked for 30 s.
    p.advance(secs(120)).await;
    assert_parked_for(&p, &id, 30.0).await;
    p.fake.start().await;
    p.advance(secs(30)).await;
    p.settle_until("the second call", |p| p.fake.calls().len() == 2)
        .await;
    p.fake.stop();
    p.advance(secs(120)).await;
    assert_parked_for(&p, &id, 60.0).await;

    let note = p.note(&id);
    assert_eq!((note.status.as_str(), note.job.unwrap().0), ("pending", 0));
    assert!(note.error.is_none());
    assert!(p.events_of("ai_failed").is_empty());
}

#[actix_rt::test(system = "PausedSystem")]
async fn a_busy_503_parks_the_worker_like_a_timeout() {
    let p = Pipeline::start(&[]).await;
    p.fake.set_default(Reply::Busy);
    let id = p.capture("the server is busy").await;
    assert_parked_for(&p, &id, 30.0).await;
    assert_eq!(p.note(&id).job.unwrap().0, 0);
}

#[actix_rt::test(system = "PausedSystem")]
async fn schema_failures_retry_after_30_and_120_s_then_fail_with_ai_failed() {
    let p = Pipeline::start(&[]).await;
    let start = tokio::time::Instant::now();
    p.fake.set_default(Reply::InvalidJson);
    let id = p.capture("the model answers nonsense").await;
    p.settle_until("attempt 1 counted", |p| p.note(&id).job.unwrap().0 == 1)
        .await;

    p.advance(secs(30) - MS).await;
    assert_eq!(p.fake.calls().len(), 1, "not before 30 s");
    p.advance(MS).await;
    p.settle_until("attempt 2 counted", |p| p.note(&id).job.unwrap().0 == 2)
        .await;
    p.advance(secs(120) - MS).await;
    assert_eq!(p.fake.calls().len(), 2, "not before 120 s more");
    p.advance(MS).await;
    p.settle_until("the note failed", |p| p.note(&id).status == "failed")
        .await;

    assert_eq!(p.call_times(start), [0.0, 30.0, 150.0]);
    let note = p.note(&id);
    assert!(note.job.is_none(), "a failed note has no job row");
    assert!(note.error.unwrap().starts_with("schema"));
    p.settle_until("ai_failed written", |p| {
        !p.events_of("ai_failed").is_empty()
    })
    .await;
    assert_eq!(
        p.events_of("ai_failed"),
        [json!({ "reason": "schema", "attempts": 3 })]
    );
    p.settle_until("the count announced", |p| {
        p.failed_counts.0.lock().unwrap().last() == Some(&1)
    })
    .await;
}

#[actix_rt::test(system = "PausedSystem")]
async fn other_and_schema_failures_of_every_kind_fail_after_three_attempts() {
    let cases = [
        (Reply::RunnerCrash, "other"),
        (Reply::WrongSchema, "schema"),
        (Reply::Truncated, "schema"),
        (Reply::NotDone, "schema"),
        (Reply::EmptyContent, "schema"),
        (Reply::GarbageBody, "schema"),
    ];
    let p = Pipeline::start(&[]).await;
    for (reply, reason) in cases {
        p.fake.set_default(reply);
        let id = p.capture(&format!("note for {reply:?}")).await;
        p.settle_until("attempt 1", |p| p.note(&id).job.is_some_and(|j| j.0 == 1))
            .await;
        p.advance(secs(30)).await;
        p.settle_until("attempt 2", |p| p.note(&id).job.is_some_and(|j| j.0 == 2))
            .await;
        p.advance(secs(120)).await;
        p.settle_until("failed", |p| p.note(&id).status == "failed")
            .await;
        let error = p.note(&id).error.unwrap();
        assert!(error.starts_with(reason), "{reply:?}: {error}");
    }
    p.settle_until("every ai_failed written", |p| {
        p.events_of("ai_failed").len() == cases.len()
    })
    .await;
    let reasons: Vec<_> = p
        .events_of("ai_failed")
        .iter()
        .map(|e| e["reason"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        reasons,
        cases.iter().map(|(_, r)| r.to_string()).collect::<Vec<_>>()
    );
}

#[actix_rt::test(system = "PausedSystem")]
async fn a_success_resets_the_outage_step() {
    let mut p = Pipeline::start(&[]).await;
    p.fake.stop();
    let first = p.capture("first").await;
    assert_parked_for(&p, &first, 30.0).await;
    p.advance(secs(30)).await;
    assert_parked_for(&p, &first, 60.0).await;
    p.advance(secs(60)).await;
    assert_parked_for(&p, &first, 120.0).await;

    // Ollama comes back: the monitor sees it within a health interval; the note is done.
    p.fake.start().await;
    p.advance(secs(1)).await;
    p.settle_until("the first note is done", |p| {
        p.note(&first).status == "done"
    })
    .await;

    // Down again: the next wait starts from 30 s, not 240 s.
    p.fake.stop();
    let second = p.capture("second").await;
    assert_parked_for(&p, &second, 30.0).await;
}

#[actix_rt::test(system = "PausedSystem")]
async fn a_schema_failure_does_not_hold_up_other_due_jobs() {
    let p = Pipeline::start(&[]).await;
    p.fake.push(&[Reply::InvalidJson]);
    // The first call gets the bad answer: the bad note goes first whether the worker
    // sees one note or both when it picks (the cheapest due note first, then the
    // oldest), so it is both the older and the shorter.
    let bad = p.capture("a bad answer").await;
    let good = p
        .capture("this one is fine, and it is the longer note")
        .await;

    p.settle_until("the second note is done", |p| {
        p.note(&good).status == "done"
    })
    .await;

    assert_eq!(
        p.elapsed(),
        0.0,
        "done at once, not after the first note's 30 s"
    );
    let bad = p.note(&bad);
    assert_eq!(bad.status, "pending");
    assert_eq!(bad.job.unwrap().0, 1);
}

#[actix_rt::test(system = "PausedSystem")]
async fn the_request_asks_for_json_by_schema_at_temperature_0_without_streaming() {
    let p = Pipeline::start(&[]).await;
    let id = p.capture("what does the request look like").await;
    p.settle_until("done", |p| p.note(&id).status == "done")
        .await;

    let request = &p.fake.calls()[0].request;
    assert_eq!(request["model"], "llama3.2");
    assert_eq!(request["stream"], true);
    assert_eq!(request["options"]["temperature"], 0);
    assert_eq!(request["format"]["type"], "object");
    assert_eq!(
        request["format"]["required"],
        json!(["title", "tags", "summary", "when"])
    );
    assert_eq!(
        request["messages"][1]["content"],
        "what does the request look like"
    );
    p.settle_until("ai_done written", |p| p.events_of("ai_done").len() == 1)
        .await;
    let done = p.events_of("ai_done");
    assert!(done[0]["latencyMs"].is_u64());
}

#[actix_rt::test(system = "PausedSystem")]
async fn with_nothing_due_and_the_provider_ready_nothing_polls() {
    let p = Pipeline::start(&[]).await;
    let id = p.capture("one note").await;
    p.settle_until("done", |p| p.note(&id).status == "done")
        .await;
    let (calls, checks) = (p.fake.calls().len(), p.fake.health_checks());

    p.advance(secs(24 * 3600)).await;

    assert_eq!(
        p.fake.calls().len(),
        calls,
        "no provider call without a due job"
    );
    assert_eq!(
        p.fake.health_checks(),
        checks,
        "no health polling while ready"
    );
}
