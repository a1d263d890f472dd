//! `OllamaClient` against every failure mode of the fake server, classified (docs/DESIGN.md,
//! "Failure reasons").
//! Real time, with a short request deadline: nothing here is a timed rule.

use inkling::ai::ollama::OllamaClient;
use std::time::Duration;

use inkling::ai::{
    classify_reason, CallPlan, Chat, FailureReason, Health, ModelServer, ProviderHealth,
};

use crate::fake_ollama::{FakeOllama, Reply};
use crate::harness::pipeline_settings;

/// A first call about `body`, with the tests' short deadline.
fn first(body: &str) -> CallPlan {
    CallPlan::first_try(body, &[], Duration::from_millis(300), 8192)
}

fn client(url: &str) -> OllamaClient {
    let dir = tempfile::tempdir().unwrap();
    let settings = pipeline_settings(
        dir.path(),
        url,
        &[("INKLING_OLLAMA__REQUEST_TIMEOUT_MS", "300")],
    );
    OllamaClient::new(&settings.ollama)
}

#[actix_rt::test]
async fn every_failure_mode_is_classified_as_spec_2_says() {
    let fake = FakeOllama::start_new().await;
    let client = client(&fake.url());
    let cases = [
        (Reply::Hang, FailureReason::Timeout),
        (Reply::Busy, FailureReason::Timeout),
        (Reply::LoadTimeout, FailureReason::Timeout),
        (Reply::InvalidJson, FailureReason::Schema),
        (Reply::WrongSchema, FailureReason::Schema),
        (Reply::Truncated, FailureReason::Schema),
        (Reply::NotDone, FailureReason::Schema),
        (Reply::EmptyContent, FailureReason::Schema),
        (Reply::GarbageBody, FailureReason::Schema),
        (Reply::ModelMissing, FailureReason::ModelMissing),
        // llama.cpp's server where Ollama was configured: the provider's state (no
        // attempt), never the note's failure.
        (Reply::NotOllama, FailureReason::Unreachable),
        (Reply::RunnerCrash, FailureReason::Other),
    ];
    for (reply, expected) in cases {
        fake.push(&[reply]);
        let error = client
            .enrich(first("a note"))
            .await
            .result
            .expect_err(&format!("{reply:?} must fail"));
        assert_eq!(classify_reason(&error), expected, "{reply:?}: {error}");
    }
}

#[actix_rt::test]
async fn a_reset_is_tried_once_more_on_a_fresh_connection_and_twice_is_unreachable() {
    let fake = FakeOllama::start_new().await;
    let client = client(&fake.url());

    fake.push(&[Reply::Reset]);
    assert!(
        client.enrich(first("reset once")).await.result.is_ok(),
        "the second try answers"
    );

    fake.push(&[Reply::Reset, Reply::Reset]);
    let error = client
        .enrich(first("reset twice"))
        .await
        .result
        .unwrap_err();
    assert_eq!(
        classify_reason(&error),
        FailureReason::Unreachable,
        "{error}"
    );
}

#[actix_rt::test]
async fn a_refused_connection_and_an_unknown_host_are_unreachable() {
    let mut fake = FakeOllama::start_new().await;
    let url = fake.url();
    fake.stop();
    let error = client(&url)
        .enrich(first("a note"))
        .await
        .result
        .unwrap_err();
    assert_eq!(
        classify_reason(&error),
        FailureReason::Unreachable,
        "{error}"
    );
}

#[actix_rt::test]
async fn good_and_fenced_answers_give_the_enrichment() {
    let fake = FakeOllama::start_new().await;
    let client = client(&fake.url());
    for reply in [Reply::Ok, Reply::Fenced] {
        fake.push(&[reply]);
        let enrichment = client.enrich(first("buy oat milk")).await.result.unwrap();
        assert_eq!(enrichment.title, "About: buy oat milk");
        assert_eq!(enrichment.tags, ["fake", "test"]);
    }
}

#[actix_rt::test]
async fn health_says_ready_model_missing_or_not_running() {
    let mut fake = FakeOllama::start_new().await;
    let client = client(&fake.url());
    assert_eq!(client.health().await, ProviderHealth::Ready);
    fake.set_models(&["LLAMA3.2:latest"]);
    assert_eq!(
        client.health().await,
        ProviderHealth::Ready,
        "case-insensitive"
    );
    fake.set_models(&["llama3.2:1b"]);
    assert_eq!(
        client.health().await,
        ProviderHealth::ModelMissing {
            model: "llama3.2".into(),
            server: ModelServer::Ollama,
        }
    );
    fake.stop();
    assert!(matches!(
        client.health().await,
        ProviderHealth::NotRunning { .. }
    ));
}

#[actix_rt::test]
async fn a_kept_connection_the_server_closed_is_not_mistaken_for_an_outage() {
    // Ollama restarts: the connection the client kept for reuse is dead. The next
    // request must go out on a fresh connection, not count as "unreachable" (which
    // would park the worker for 30 s while the health check says all is well).
    let fake = FakeOllama::start_new().await;
    fake.set_default(Reply::OkThenCloseKeptConnection);
    let client = client(&fake.url());
    for i in 0..10 {
        // The next call goes out at once, on the kept connection, which the server
        // closes a few milliseconds after each answer.
        client
            .enrich(first(&format!("note {i}")))
            .await
            .result
            .unwrap_or_else(|e| panic!("call {i}: {e}"));
    }
}
