//! A model that is slow, missing, cold or wrong, not only a server that is down
//! (docs/DESIGN.md, "The worker policy": slow notes, a missing model, a cold model,
//! retries that are different requests), end to end on virtual time.

use std::time::Duration;

use inkling::actors::ai_worker::GetWorkerStatus;
use inkling::actors::provider_monitor::Recheck;
use inkling::ai::ProviderHealth;
use inkling::api::worker::ModelUse;
use inkling::api::worker::WorkerState;

use crate::fake_ollama::Reply;
use crate::harness::{PausedSystem, Pipeline};

fn body(text: &str) -> inkling::domain::NoteBody {
    inkling::domain::NoteBody::parse(text.to_string(), 65536).unwrap()
}

fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

#[actix_rt::test(system = "PausedSystem")]
async fn a_slow_note_with_ollama_up_holds_up_nobody_and_is_tried_with_longer_deadlines() {
    let p = Pipeline::start(&[]).await;
    let start = tokio::time::Instant::now();
    p.fake.push(&[Reply::Hang]);
    let long = p
        .capture("a pasted article the model cannot finish in 2 min")
        .await;
    let short = p.capture("buy stamps").await;
    p.settle_until("the first call", |p| p.fake.calls().len() == 1)
        .await;

    // The deadline passes with Ollama up: the other note goes at once, no park.
    p.advance(secs(120)).await;
    p.settle_until("the short note is done", |p| {
        p.note(&short).status == "done"
    })
    .await;
    assert_eq!(p.elapsed(), 120.0, "not after a 30 s park");
    let row = p.note(&long);
    let (attempts, _, wait) = row.job.clone().expect("still queued");
    assert_eq!(
        (row.status.as_str(), attempts, wait.as_deref()),
        ("pending", 0, Some("retry"))
    );
    assert_eq!(p.slow_timeouts(&long), Some(1));
    assert!(row.error.is_none(), "never failed");

    // Two more timeouts, with the deadline doubling each time (240 s, 480 s), each
    // after its wait (30 s, then 120 s).
    p.fake.push(&[Reply::Hang, Reply::Hang]);
    p.advance(secs(30)).await;
    p.advance(secs(240)).await;
    p.advance(secs(120)).await;
    p.advance(secs(480)).await;
    assert_eq!(p.call_times(start), [0.0, 120.0, 150.0, 510.0]);
    assert_eq!(p.slow_timeouts(&long), Some(3));
    let status = p.ask(&p.services.worker, GetWorkerStatus).await;
    assert_eq!(status.slow_notes.len(), 1, "shown as slow after three");
    assert_eq!(
        (
            status.slow_notes[0].note_id.as_str(),
            status.slow_notes[0].next_deadline_ms
        ),
        (long.as_str(), 600_000)
    );

    // The fourth try has up to 10 min, and the model finishes in 7.
    p.fake.push(&[Reply::OkAfterSeconds(420)]);
    p.advance(secs(120)).await;
    p.advance(secs(420)).await;
    p.settle_until("the long note is done", |p| p.note(&long).status == "done")
        .await;
    assert!(p.events_of("ai_failed").is_empty());
    // The model's time: three calls abandoned at their deadline, one answer kept.
    let time = p.ask(&p.services.worker, GetWorkerStatus).await.model_time;
    assert_eq!(
        (
            time.kept_ms,
            time.wasted_ms.get(&ModelUse::Timeout).copied()
        ),
        (420_000, Some((120 + 240 + 480) * 1000))
    );
    p.settle_until("logged", |p| p.events_of("ai_model_time").len() == 4)
        .await;
    assert_eq!(
        p.events_of("ai_model_time")[0],
        serde_json::json!({ "use": "timeout", "ms": 120000 })
    );
    assert!(p.invariant_violations().is_empty());
}

#[actix_rt::test(system = "PausedSystem")]
async fn a_model_not_pulled_spends_no_attempt_and_the_work_starts_when_it_is() {
    let p = Pipeline::start(&[]).await;
    // The model goes missing (say, the first day of an install) before the monitor knows.
    p.fake.set_models(&[]);
    p.fake.set_default(Reply::ModelMissing);
    let first = p.capture("captured before the model was pulled").await;
    p.settle_until("the monitor sees it missing", |p| {
        p.fake.calls().len() == 1 && p.fake.health_checks() >= 2
    })
    .await;
    p.settle().await;
    let mut notes = vec![first];
    for i in 0..5 {
        notes.push(
            p.capture(&format!("note {i} while the model is missing"))
                .await,
        );
    }
    // An hour of health intervals: not one more chat call, nothing counted or failed.
    for _ in 0..60 {
        p.advance(secs(60)).await;
    }
    assert_eq!(
        p.fake.calls().len(),
        1,
        "one call found the model missing; none since"
    );
    let status = p.ask(&p.services.worker, GetWorkerStatus).await;
    assert_eq!(status.state, WorkerState::WaitingForModel);
    for id in &notes {
        let row = p.note(id);
        assert_eq!(
            (row.status.as_str(), row.job.map(|j| j.0)),
            ("pending", Some(0))
        );
    }

    // `ollama pull` finishes: within one health interval (1 s) the work starts.
    p.fake.set_models(&["llama3.2:latest"]);
    p.fake.set_default(Reply::Ok);
    p.advance(secs(1)).await;
    p.settle_until("every note done", |p| p.count_with_status("done") == 6)
        .await;
    assert_eq!(p.fake.calls().len(), 7);
    assert!(p.events_of("ai_failed").is_empty());
    assert!(p.invariant_violations().is_empty());
}

#[actix_rt::test(system = "PausedSystem")]
async fn notes_an_older_release_failed_for_a_missing_model_go_back_to_pending_when_it_is_there() {
    use inkling::storage::Store;
    let fake = crate::fake_ollama::FakeOllama::start_new().await;
    let dir = tempfile::tempdir().unwrap();
    let (missing, crashed) = {
        let settings = crate::harness::pipeline_settings(dir.path(), &fake.url(), &[]);
        let mut store = Store::open(&settings.database_path(), 30).unwrap();
        let now = crate::harness::t0();
        let missing = store
            .capture(&body("failed for a missing model"), now)
            .unwrap()
            .id;
        let crashed = store.capture(&body("failed for a crash"), now).unwrap().id;
        store
            .mark_ai_failed(&missing, "other: HTTP 404: model 'llama3.2' not found", now)
            .unwrap();
        store
            .mark_ai_failed(
                &crashed,
                "other: HTTP 500: model runner has unexpectedly stopped",
                now,
            )
            .unwrap();
        (missing, crashed)
    };
    let p = Pipeline::start_with(fake, dir, &[]).await;
    p.settle_until("the model-missing one is done", |p| {
        p.note(&missing).status == "done"
    })
    .await;
    assert_eq!(
        p.note(&crashed).status,
        "failed",
        "a real failure stays the user's to retry"
    );
    p.settle_until("the count announced", |p| {
        p.failed_counts.0.lock().unwrap().last() == Some(&1)
    })
    .await;
}

#[actix_rt::test(system = "PausedSystem")]
async fn the_model_is_loaded_first_and_kept_loaded_and_a_slow_load_charges_no_note() {
    let p = Pipeline::start(&[]).await;
    p.fake.set_load_seconds(200); // longer than a call's 120 s deadline
    let start = tokio::time::Instant::now();
    let id = p.capture("the first note of the day").await;
    p.settle().await;
    assert_eq!(
        (p.fake.loads(), p.fake.calls().len()),
        (1, 0),
        "loading first"
    );
    p.advance(secs(200)).await;
    p.settle_until("done", |p| p.note(&id).status == "done")
        .await;
    assert_eq!(p.fake.loads(), 1);
    assert_eq!(p.call_times(start), [200.0], "the call came after the load");
    let call = &p.fake.calls()[0];
    assert_eq!(call.request["keep_alive"], "30m");

    // Within keep-alive: no load again. After it: a load first.
    p.fake.set_load_seconds(0);
    let second = p.capture("ten minutes later").await;
    p.settle_until("done", |p| p.note(&second).status == "done")
        .await;
    assert_eq!(p.fake.loads(), 1);
    p.advance(secs(31 * 60)).await;
    let third = p.capture("after lunch").await;
    p.settle_until("done", |p| p.note(&third).status == "done")
        .await;
    assert_eq!(p.fake.loads(), 2);
}

#[actix_rt::test(system = "PausedSystem")]
async fn a_retry_after_a_refused_answer_is_a_different_request() {
    let p = Pipeline::start(&[]).await;
    p.fake
        .push(&[Reply::WrongSchema, Reply::Truncated, Reply::Ok]);
    let id = p.capture("a note the model gets wrong twice").await;
    p.settle().await;
    assert_eq!(p.fake.calls().len(), 1, "first refused");
    p.advance(secs(30)).await;
    assert_eq!(p.fake.calls().len(), 2, "second refused");
    p.advance(secs(120)).await;
    p.settle_until("done", |p| p.note(&id).status == "done")
        .await;

    let calls = p.fake.calls();
    let first = &calls[0].request;
    assert_eq!(first["messages"].as_array().map(Vec::len), Some(2));
    assert_eq!(first["options"]["temperature"], 0);
    // The retry shows the model its answer and what was wrong, with a new seed.
    let second = &calls[1].request;
    assert_eq!(
        second["messages"][2]["content"],
        r#"{"title":"T","tags":"a"}"#
    );
    let told = second["messages"][3]["content"]
        .as_str()
        .unwrap_or_default();
    assert!(told.contains("not a list"), "{told}");
    assert_eq!(second["options"]["seed"], 1);
    assert_ne!(second["options"]["temperature"], 0);
    assert_eq!(second["options"]["num_predict"], 512);
    // After an answer cut off at the limit: more room.
    let third = &calls[2].request;
    assert_eq!(third["options"]["seed"], 2);
    assert!(third["options"]["num_predict"].as_u64() > Some(512));
    assert!(third["messages"][3]["content"]
        .as_str()
        .unwrap_or_default()
        .contains("cut off"));
    assert_ne!(first, second);
}

#[actix_rt::test(system = "PausedSystem")]
async fn a_recheck_while_the_model_is_missing_says_so_and_resumes_nothing() {
    let p = Pipeline::start(&[]).await;
    p.fake.set_models(&[]);
    assert!(matches!(
        p.ask(&p.services.monitor, Recheck).await,
        ProviderHealth::ModelMissing { .. }
    ));
    let id = p.capture("waits for the model").await;
    p.settle().await;
    assert!(
        p.fake.calls().is_empty(),
        "the monitor knew: no call at all"
    );
    assert_eq!(p.note(&id).job.map(|j| j.0), Some(0));
}

#[actix_rt::test(system = "PausedSystem")]
async fn a_note_longer_than_the_context_is_read_from_its_beginning_and_says_so() {
    let p = Pipeline::start(&[]).await;
    p.fake.set_context_length(4096); // smaller than ollama.num_ctx (8192)
    let article = format!(
        "Why the bridge closed\n{}THE END",
        "The council met on Monday and heard the engineers. ".repeat(800)
    );
    let id = p.capture(&article).await;
    p.settle_until("done", |p| p.note(&id).status == "done")
        .await;

    let calls = p.fake.calls();
    let request = &calls[0].request;
    assert_eq!(
        request["options"]["num_ctx"], 4096,
        "never above the model's"
    );
    let sent = request["messages"][1]["content"]
        .as_str()
        .unwrap_or_default();
    assert!(
        sent.starts_with("Why the bridge closed\n"),
        "the head is kept"
    );
    assert!(
        !sent.contains("THE END") && sent.len() < 12_000,
        "{}",
        sent.len()
    );
    let read: Option<u32> = p.note_column(&id, "ai_read_chars");
    assert_eq!(read, Some(sent.chars().count() as u32));

    // A note that fits is read whole, and says nothing.
    let short = p.capture("a short one").await;
    p.settle_until("done", |p| p.note(&short).status == "done")
        .await;
    assert_eq!(p.note_column::<Option<u32>>(&short, "ai_read_chars"), None);
    let loads = p.fake.loads();
    assert_eq!(loads, 1, "one context for every call: no reload");
}

/// The model gone (the monitor knows), and a download asked for: its steps.
async fn pull_without_the_model(
    p: &Pipeline,
) -> tokio::sync::mpsc::UnboundedReceiver<inkling::events::ModelPullProgress> {
    p.fake.set_models(&[]);
    p.ask(&p.services.monitor, Recheck).await;
    let (watcher, steps) = tokio::sync::mpsc::unbounded_channel();
    let ask = inkling::actors::model_pull::PullModel {
        watcher: Some(watcher),
    };
    p.ask(&p.services.model_pull, ask).await;
    steps
}

#[actix_rt::test(system = "PausedSystem")]
async fn pulling_the_model_from_inkling_shows_its_progress_and_starts_the_work() {
    use inkling::actors::model_pull::PullModel;
    use inkling::events::PullState;
    let p = Pipeline::start(&[]).await;
    p.fake.set_pull_step_seconds(10);
    let mut steps = pull_without_the_model(&p).await;
    let id = p.capture("waits for the download").await;
    // A second ask joins the download under way.
    p.ask(&p.services.model_pull, PullModel { watcher: None })
        .await;
    // Three steps of ten seconds a model, two models.
    for _ in 0..6 {
        p.advance(secs(10)).await;
    }
    p.settle_until("done", |p| p.note(&id).status == "done")
        .await;
    assert_eq!(
        p.fake.pulls(),
        2,
        "one download: the chat model, then the embedding model"
    );
    let mut seen = Vec::new();
    let mut models: Vec<String> = Vec::new();
    while let Ok(step) = steps.try_recv() {
        if models.last() != Some(&step.model) {
            models.push(step.model.clone());
        }
        seen.push(step.state);
    }
    assert_eq!(
        models,
        [p.settings.ollama.model.as_str(), "embeddinggemma"],
        "each step names its model"
    );
    assert_eq!(
        seen.iter().filter(|s| **s == PullState::Done).count(),
        1,
        "done once, after the last model: {seen:?}"
    );
    assert!(
        seen.iter().any(|s| matches!(s,
        PullState::Running { completed: Some(c), total: Some(t), .. } if c * 2 == *t)),
        "{seen:?}"
    );
    assert_eq!(seen.last(), Some(&PullState::Done));
    assert_eq!(
        p.fake.calls().len(),
        1,
        "no chat call before the model was there"
    );
}

#[actix_rt::test(system = "PausedSystem")]
async fn a_download_that_fails_says_why_and_changes_nothing() {
    use inkling::events::PullState;
    let p = Pipeline::start(&[]).await;
    p.fake
        .fail_pulls("pull model manifest: file does not exist");
    let mut steps = pull_without_the_model(&p).await;
    p.settle().await;
    let mut last = None;
    while let Ok(step) = steps.try_recv() {
        last = Some(step.state);
    }
    match last {
        Some(PullState::Failed { error }) => {
            assert!(error.contains("file does not exist"), "{error}")
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        p.ask(&p.services.monitor, Recheck).await,
        ProviderHealth::ModelMissing { .. }
    ));
}
