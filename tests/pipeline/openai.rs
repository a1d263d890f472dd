//! An OpenAI-compatible model server as the provider (`ai.provider = "openai"`), faked
//! as llama.cpp's answers (docs/PLATFORM.md, "OpenAI-compatible servers"), end to end
//! on virtual time: what is asked, the output format a server refuses, a model still
//! loading, a note over the context, a reasoning block, an API key refused.

use std::time::Duration;

use inkling::actors::provider_monitor::{GetProviderHealth, Recheck};
use inkling::ai::ProviderHealth;

use crate::fake_openai::{Answered, Reply};
use crate::harness::{PausedSystem, Pipeline};

/// The title the fake model gives a note.
fn title_of(p: &Pipeline, id: &str) -> Option<String> {
    p.note_column(id, "title")
}

/// The note text each chat request carried (its last user message).
fn notes_asked(p: &Pipeline) -> Vec<String> {
    p.openai()
        .calls()
        .iter()
        .map(|call| {
            let messages = call.request["messages"].as_array().unwrap();
            let user = messages.iter().rev().find(|m| m["role"] == "user").unwrap();
            user["content"].as_str().unwrap().to_string()
        })
        .collect()
}

fn formats_asked(p: &Pipeline) -> Vec<String> {
    p.openai()
        .calls()
        .iter()
        .map(|call| {
            call.request
                .pointer("/response_format/type")
                .and_then(|t| t.as_str())
                .unwrap_or("none")
                .to_string()
        })
        .collect()
}

#[actix_rt::test(system = "PausedSystem")]
async fn a_note_is_done_with_one_call_asking_for_the_schema_of_the_configured_model() {
    let p = Pipeline::start_openai(&[]).await;
    let id = p.capture("buy stamps and a birthday card for Mina").await;
    p.settle_until("the note is done", |p| p.note(&id).status == "done")
        .await;

    let calls = p.openai().calls();
    assert_eq!(calls.len(), 1);
    let request = &calls[0].request;
    assert_eq!(request["model"], "gemma-3-270m");
    assert_eq!(request["stream"], true);
    assert_eq!(request["response_format"]["type"], "json_schema");
    assert_eq!(
        request["response_format"]["json_schema"]["schema"]["required"],
        serde_json::json!(["title", "tags", "summary", "when"])
    );
    assert!(request["max_tokens"].as_u64().is_some_and(|n| n > 0));
    assert_eq!(
        title_of(&p, &id).as_deref(),
        Some("About: buy stamps and a birthday card for Mina")
    );
    assert!(p.fake.calls().is_empty(), "Ollama is not asked");
    assert!(p.events_of("ai_failed").is_empty());
}

#[actix_rt::test(system = "PausedSystem")]
async fn a_server_that_refuses_the_schema_is_asked_for_json_at_once_and_that_is_remembered() {
    let p = Pipeline::start_openai(&[]).await;
    p.openai().refuse_json_schema(true);
    let first = p.capture("call the plumber about the kitchen tap").await;
    p.settle_until("the first note is done", |p| {
        p.note(&first).status == "done"
    })
    .await;
    assert_eq!(formats_asked(&p), ["json_schema", "json_object"]);
    assert_eq!(p.elapsed(), 0.0, "asked again at once, no retry wait");
    assert_eq!(p.openai().calls()[0].answered, Answered::FormatRefused);

    // The next note is asked with the format the server takes, first time.
    let second = p.capture("book the dentist for March").await;
    p.settle_until("the second note is done", |p| {
        p.note(&second).status == "done"
    })
    .await;
    assert_eq!(
        formats_asked(&p),
        ["json_schema", "json_object", "json_object"]
    );
    assert!(p.events_of("ai_failed").is_empty());
}

#[actix_rt::test(system = "PausedSystem")]
async fn while_the_server_loads_its_model_no_call_is_made_and_the_note_is_done_after() {
    let p = Pipeline::start_openai(&[]).await;
    p.openai().set_loading(true);
    let health = p.ask(&p.services.monitor, Recheck).await;
    assert!(
        matches!(health, ProviderHealth::Loading { .. }),
        "{health:?}"
    );

    let id = p.capture("water the plants on the balcony").await;
    p.advance(Duration::from_secs(30)).await;
    assert!(p.openai().calls().is_empty(), "no call while it loads");
    let row = p.note(&id);
    assert_eq!(row.status, "pending");
    assert_eq!(row.job.map(|(attempts, _, _)| attempts), Some(0));

    // Loaded: the next look finds it ready and the note goes at once.
    p.openai().set_loading(false);
    p.advance(Duration::from_secs(1)).await;
    p.settle_until("the note is done", |p| p.note(&id).status == "done")
        .await;
    assert_eq!(p.openai().calls().len(), 1);
    assert_eq!(
        p.ask(&p.services.monitor, GetProviderHealth).await,
        Some(ProviderHealth::Ready)
    );
}

#[actix_rt::test(system = "PausedSystem")]
async fn a_note_over_the_servers_context_is_asked_again_shorter_and_done() {
    let p = Pipeline::start_openai(&[]).await;
    p.openai().push(&[Reply::ContextExceeded]);
    let article = "The committee met on Tuesday to review the budget. ".repeat(300);
    let id = p.capture(&article).await;
    p.settle_until("the note is done", |p| p.note(&id).status == "done")
        .await;

    let asked = notes_asked(&p);
    assert_eq!(asked.len(), 2, "refused once, then answered");
    assert!(
        asked[1].chars().count() < asked[0].chars().count(),
        "the second reading is shorter: {} then {} characters",
        asked[0].chars().count(),
        asked[1].chars().count()
    );
    assert!(
        asked[1].starts_with("The committee met"),
        "read from its start"
    );
    assert!(p.events_of("ai_failed").is_empty());
}

#[actix_rt::test(system = "PausedSystem")]
async fn a_reasoning_block_before_the_answer_is_set_aside() {
    let p = Pipeline::start_openai(&[]).await;
    p.openai().set_default(Reply::Thinking);
    let id = p.capture("renew the passport before June").await;
    p.settle_until("the note is done", |p| p.note(&id).status == "done")
        .await;
    assert_eq!(
        title_of(&p, &id).as_deref(),
        Some("About: renew the passport before June")
    );
    let summary: Option<String> = p.note_column(&id, "summary");
    assert!(!summary.unwrap_or_default().contains("think"));
}

#[actix_rt::test(system = "PausedSystem")]
async fn an_api_key_the_server_refuses_is_said_in_plain_words_and_costs_no_note_anything() {
    // llama.cpp's --api-key guards /v1/models (b11434); a server that lists its models
    // to anyone shows the refusal on /props, or on the first note.
    for models_open in [false, true] {
        key_refused_then_taken(models_open).await;
    }
}

async fn key_refused_then_taken(models_open: bool) {
    let p = Pipeline::start_openai(&[
        ("INKLING_OPENAI__API_KEY_ENV", "MODEL_SERVER_TEST_KEY"),
        ("MODEL_SERVER_TEST_KEY", "an-old-key"),
    ])
    .await;
    p.openai().open_models(models_open);
    p.openai().require_key("the-new-key");
    let id = p.capture("ask Jun about the weekend hike").await;
    p.advance(Duration::from_secs(1)).await;
    let health = p.ask(&p.services.monitor, GetProviderHealth).await;
    let Some(ProviderHealth::KeyRefused { detail }) = &health else {
        panic!("the refusal is the provider's state: {health:?}");
    };
    assert!(detail.contains("API key"), "{detail}");

    // Nobody is nagged and nothing is spent: an hour later, at most the one call
    // that met the refusal, the note waiting with no attempt counted.
    for _ in 0..60 {
        p.advance(Duration::from_secs(60)).await;
    }
    let refused = p.openai().calls().len();
    assert!(refused <= 1, "no call again by itself: {refused}");
    let row = p.note(&id);
    assert_eq!(row.status, "pending");
    assert_eq!(row.job.map(|(attempts, _, _)| attempts), Some(0));

    // The server is given the key inkling has (restarted with it): the next look,
    // within the health interval, finds it and the note goes by itself.
    p.openai().require_key("an-old-key");
    p.advance(Duration::from_secs(1)).await;
    p.settle_until("the note is done", |p| p.note(&id).status == "done")
        .await;
    assert_eq!(p.openai().calls().len(), refused + 1);
    assert_eq!(
        p.ask(&p.services.monitor, GetProviderHealth).await,
        Some(ProviderHealth::Ready)
    );
}

#[actix_rt::test(system = "PausedSystem")]
async fn a_call_still_generating_at_its_deadline_is_hung_up_then_and_counted() {
    hung_up_then_measured(0, 0..=0).await;
}

#[actix_rt::test(system = "PausedSystem")]
async fn a_server_that_goes_on_after_a_hang_up_is_measured_doing_so() {
    // A minute on after the hang-up, holding the one slot: the next call waits for
    // it, and measures the wait less its own work (about a second by its timings).
    hung_up_then_measured(60, 58_000..=60_000).await;
}

/// A model writing for ever, hung up at the deadline; the server goes on
/// `goes_on_seconds` after it; the next try measures how long.
async fn hung_up_then_measured(goes_on_seconds: u64, measured_ms: std::ops::RangeInclusive<u64>) {
    let p = Pipeline::start_openai(&[]).await;
    p.openai().set_goes_on_after_hang_up(goes_on_seconds);
    let start = tokio::time::Instant::now();
    p.openai().push(&[Reply::Generating]);
    let id = p.capture("a note the model writes about for ever").await;
    p.settle_until("the call streams", |p| p.openai().held_calls() == 1)
        .await;

    // Pieces keep coming; at the deadline (2 min) inkling hangs up, and the server's
    // stream ends then, not when it would have finished.
    p.advance(Duration::from_secs(120)).await;
    p.settle_until("the server sees the hang-up", |p| {
        p.openai().held_calls() == 0
    })
    .await;
    let hang_ups: Vec<f64> = p
        .openai()
        .hang_ups()
        .iter()
        .map(|at| (*at - start).as_secs_f64())
        .collect();
    assert_eq!(hang_ups.len(), 1);
    assert!(
        (120.0..121.0).contains(&hang_ups[0]),
        "hung up at the deadline: {hang_ups:?}"
    );

    // The next try answers once the slot is free; it measures how long the server
    // went on after the hang-up.
    p.advance(Duration::from_secs(30)).await;
    p.advance(Duration::from_secs(goes_on_seconds)).await;
    p.settle_until("the note is done", |p| p.note(&id).status == "done")
        .await;
    let time = p
        .ask(
            &p.services.worker,
            inkling::actors::ai_worker::GetWorkerStatus,
        )
        .await
        .model_time;
    assert_eq!((time.hung_up, time.after_hang_up_measured), (1, 1));
    assert!(
        measured_ms.contains(&time.after_hang_up_ms),
        "went on {goes_on_seconds} s, measured {} ms",
        time.after_hang_up_ms
    );
}
