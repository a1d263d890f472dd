//! The AI routes over HTTP, end to end against the fake Ollama (real time: these
//! check wiring, not timed rules; those are in tests/pipeline on virtual time).

use std::time::Duration;

use serde_json::{json, Value};

use crate::fake_ollama::{FakeOllama, Reply};
use crate::helpers::{spawn_app_with, TestApp};

/// Polls a condition over HTTP; waiting for background work to finish, not timing it.
async fn eventually(
    app: &TestApp,
    what: &str,
    condition: impl Fn(&Value) -> bool,
    path: &str,
) -> Value {
    for _ in 0..500 {
        let (_, body) = app.get(path).await;
        if condition(&body) {
            return body;
        }
        actix_rt::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("never happened: {what}");
}

async fn app_with_fake(fake: &FakeOllama) -> TestApp {
    spawn_app_with(&[
        ("INKLING_OLLAMA__URL", &fake.url()),
        ("INKLING_WORKER__RETRY_BACKOFFS_MS", "0,0,0"),
    ])
    .await
}

#[actix_rt::test]
async fn a_captured_note_is_enriched_and_the_status_shows_provider_and_worker() {
    let fake = FakeOllama::start_new().await;
    let app = app_with_fake(&fake).await;

    let note = app.capture("buy oat milk and coffee").await;
    let id = note["id"].as_str().unwrap();

    let done = eventually(
        &app,
        "enriched",
        |n| n["ai_status"] == "done",
        &format!("/api/notes/{id}"),
    )
    .await;
    assert_eq!(done["title"], "About: buy oat milk and coffee");
    assert_eq!(done["tags"], json!(["fake", "test"]));
    let (status, body) = app.get("/api/status").await;
    assert_eq!(status, 200);
    assert_eq!(body["provider"], json!({ "state": "ready" }));
    let worker = &body["worker"];
    assert_eq!(
        (&worker["state"], &worker["queued"], &worker["slow_notes"]),
        (&json!("idle"), &json!(0), &json!([]))
    );
    assert!(worker["model_time"]["kept_ms"].is_u64(), "{worker}");
    // The use cases are plain code now (src/inbox/), not an actor: no mailbox to count.
    for actor in ["repository", "ai_worker", "provider_monitor", "telemetry"] {
        assert!(
            body["actors"][actor]["handled"].as_u64().unwrap_or(0) > 0,
            "{actor} counted no message: {}",
            body["actors"]
        );
    }
    assert_eq!(body["counts"]["pending"], 0);
}

#[actix_rt::test]
async fn failed_count_and_retry_all_over_http() {
    let fake = FakeOllama::start_new().await;
    fake.set_default(Reply::WrongSchema);
    let app = app_with_fake(&fake).await;
    app.capture("one").await;
    app.capture("two").await;

    eventually(
        &app,
        "two failed",
        |n| n == &json!(2),
        "/api/inbox/failed-count",
    )
    .await;
    fake.set_default(Reply::Ok);
    let (status, body) = app
        .post_json("/api/inbox/retry-all-failed", &json!({}))
        .await;
    assert_eq!((status, body), (200, json!({ "count": 2 })));

    eventually(
        &app,
        "all done",
        |n| n.as_array().is_some_and(|a| a.len() == 2),
        "/api/notes?status=done",
    )
    .await;
    let (_, count) = app.get("/api/inbox/failed-count").await;
    assert_eq!(count, json!(0));
    let (_, again) = app
        .post_json("/api/inbox/retry-all-failed", &json!({}))
        .await;
    assert_eq!(again, json!({ "count": 0 }));
}

#[actix_rt::test]
async fn recheck_reports_the_provider_and_tells_a_missing_model_apart() {
    let mut fake = FakeOllama::start_new().await;
    let app = app_with_fake(&fake).await;

    let (status, body) = app.post_json("/api/provider/recheck", &json!({})).await;
    assert_eq!((status, body), (200, json!({ "state": "ready" })));
    fake.set_models(&[]);
    let (_, body) = app.post_json("/api/provider/recheck", &json!({})).await;
    assert_eq!(
        body,
        json!({ "state": "model_missing", "model": "llama3.2", "server": "ollama" })
    );
    fake.stop();
    let (_, body) = app.post_json("/api/provider/recheck", &json!({})).await;
    assert_eq!(body["state"], "not_running");
}

#[actix_rt::test]
async fn the_old_ollama_paths_answer_as_aliases_of_the_provider_routes() {
    let fake = FakeOllama::start_new().await;
    let app = app_with_fake(&fake).await;

    let (status, body) = app.post_json("/api/ollama/recheck", &json!({})).await;
    assert_eq!((status, body), (200, json!({ "state": "ready" })));
    fake.set_models(&[]);
    let (_, new) = app.post_json("/api/provider/recheck", &json!({})).await;
    let (_, old) = app.post_json("/api/ollama/recheck", &json!({})).await;
    assert_eq!(new, old, "the alias answers what the route answers");
    assert_eq!(old["state"], "model_missing");

    // Only POST, as the routes: the alias refuses a GET the same way.
    let (new_status, _) = app.get("/api/provider/recheck").await;
    let (old_status, _) = app.get("/api/ollama/recheck").await;
    assert_eq!((new_status, old_status), (405, 405));
}

#[actix_rt::test]
async fn a_usage_log_that_cannot_be_written_never_fails_a_capture() {
    let fake = FakeOllama::start_new().await;
    let app = app_with_fake(&fake).await;
    // A file where the telemetry directory should be: every write fails.
    std::fs::write(app.data_dir.path().join("telemetry"), b"in the way").unwrap();

    let note = app.capture("still captured").await;
    let id = note["id"].as_str().unwrap();
    eventually(
        &app,
        "enriched",
        |n| n["ai_status"] == "done",
        &format!("/api/notes/{id}"),
    )
    .await;
    assert_eq!(app.note_count_in_db(), 1);
}

/// Reads SSE frames until one of `event` arrives; returns its data.
async fn next_event<S>(stream: &mut S, event: &str) -> Value
where
    S: futures_util::Stream<Item = Result<actix_web::web::Bytes, awc::error::PayloadError>> + Unpin,
{
    use futures_util::StreamExt;
    let mut buffer = String::new();
    let wait = async {
        loop {
            let chunk = stream.next().await.expect("the stream is open").unwrap();
            buffer.push_str(&String::from_utf8_lossy(&chunk));
            while let Some(end) = buffer.find("\n\n") {
                let frame: String = buffer.drain(..end + 2).collect();
                let mut lines = frame.lines();
                if lines.next() == Some(&format!("event: {event}")) {
                    let data = lines.next().unwrap().trim_start_matches("data: ");
                    return serde_json::from_str::<Value>(data).unwrap();
                }
            }
        }
    };
    actix_rt::time::timeout(Duration::from_secs(10), wait)
        .await
        .unwrap_or_else(|_| panic!("no {event} event"))
}

#[actix_rt::test]
async fn live_events_report_notes_counts_and_provider_health() {
    let fake = FakeOllama::start_new().await;
    fake.set_default(Reply::WrongSchema);
    let app = app_with_fake(&fake).await;
    let mut stream = awc::Client::new()
        .get(format!("{}/api/events", app.address))
        .bearer_auth(&app.token)
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), 200);
    assert_eq!(
        stream
            .headers()
            .get("content-type")
            .unwrap()
            .to_str()
            .unwrap(),
        "text/event-stream"
    );
    // The hub replays the provider's last health to a new subscriber.
    assert_eq!(
        next_event(&mut stream, "ollama_status").await,
        json!({ "state": "ready" })
    );

    let note = app.capture("watch me fail").await;

    // Each event carries what changed: the note as it is now, the counts.
    assert_eq!(
        next_event(&mut stream, "note_changed").await,
        json!({ "id": note["id"], "note": note })
    );
    // The repository announces the counts as it marks the note failed, then the
    // worker announces the note.
    assert_eq!(
        next_event(&mut stream, "failed_count").await,
        json!({ "count": 1 })
    );
    assert_eq!(
        next_event(&mut stream, "counts").await,
        json!({ "pending": 0, "failed": 1, "expired": 0 })
    );
    let failed = next_event(&mut stream, "note_changed").await;
    assert_eq!(failed["note"]["ai_status"], "failed");
    // With its expiry facts, as every note the API returns.
    assert_eq!(failed["note"]["expired"], false);
    assert_eq!(failed["note"]["expires_at"], note["expires_at"]);
    assert!(failed["note"]["ai_error"]
        .as_str()
        .unwrap()
        .starts_with("schema"));

    // A graceful stop ends the feed at once: it does not wait out the 5 s grace period
    // that an unfinished response would get.
    let stopping = actix_rt::spawn(app.handle.stop(true));
    let feed_ended = async {
        use futures_util::StreamExt;
        while let Some(chunk) = stream.next().await {
            assert!(chunk.is_ok(), "the live feed was cut off: {chunk:?}");
        }
    };
    actix_rt::time::timeout(Duration::from_secs(4), feed_ended)
        .await
        .expect("the live feed outlived the stop");
    stopping.await.expect("stopped");
}
