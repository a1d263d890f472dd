//! The real server going away and coming back, and serving the wrong model: inkling
//! charges the note nothing (pending, attempts 0) and finishes it once the server is
//! right again.

use serde_json::Value;

use crate::eventually::eventually_within;
use crate::llama::{calls_in_log, MODEL};
use crate::scene::{Scene, ONE_CALL};
use crate::texts;

/// A note whose call lasts long enough to be caught under way (a few thousand
/// characters: seconds of prompt evaluation on this CPU, within the context).
fn a_longer_note() -> String {
    texts::article(3_000)
}

fn attempts(note: &Value) -> u64 {
    note["ai"]["attempts"]
        .as_u64()
        .unwrap_or_else(|| panic!("the note's detail has no ai.attempts: {note}"))
}

#[tokio::test]
async fn a_server_killed_during_a_call_costs_no_attempt_and_the_note_is_done_when_it_is_back() {
    let _one_at_a_time = crate::ONE_AT_A_TIME.lock().await;
    let mut scene = Scene::new();
    scene.start_llama(MODEL).await;
    scene.start_inkling();
    scene.provider_becomes("ready").await;

    let id = scene.capture(&a_longer_note());
    eventually_within(ONE_CALL, "llama-server working on the note's call", || {
        let busy = scene.llama().is_processing();
        async move { busy.then_some(()) }
    })
    .await;
    scene.kill_llama();

    // The call ends without an answer (the connection closes, then is refused): the
    // worker puts the note back, and the health check finds nobody there.
    scene.provider_becomes("not_running").await;
    scene.worker_leaves("running").await;
    let note = scene.note(&id);
    assert_eq!(note["ai_status"], "pending", "after the kill: {note}");
    assert_eq!(
        attempts(&note),
        0,
        "a killed server cost an attempt: {note}"
    );

    // The same server on the same port: the work resumes by itself.
    scene.start_llama(MODEL).await;
    let note = scene
        .settled(std::slice::from_ref(&id), ONE_CALL)
        .await
        .remove(0);
    assert_eq!(note["ai_status"], "done", "after the restart: {note}");
    assert!(
        !note["title"].as_str().unwrap_or_default().trim().is_empty(),
        "no title: {note}"
    );
}

#[tokio::test]
async fn a_server_serving_another_model_is_model_missing_gets_no_call_and_resumes_when_right() {
    let _one_at_a_time = crate::ONE_AT_A_TIME.lock().await;
    let mut scene = Scene::new();
    scene.start_llama("other-model").await;
    scene.start_inkling();
    let id = scene.capture(texts::ENGLISH);

    let provider = scene.provider_becomes("model_missing").await;
    // The worker has seen it too, and waits for the model rather than calling.
    scene.worker_becomes("waiting_for_model").await;
    let note = scene.note(&id);
    assert_eq!(
        note["ai_status"], "pending",
        "with the model missing: {note}"
    );
    assert_eq!(
        attempts(&note),
        0,
        "the missing model cost an attempt: {note}"
    );
    assert_eq!(
        calls_in_log(&scene.llama_log()),
        0,
        "inkling called a server that does not serve {MODEL} ({provider})"
    );

    // The server restarted under the configured name: the note is done.
    scene.kill_llama();
    scene.start_llama(MODEL).await;
    scene.provider_becomes("ready").await;
    let note = scene
        .settled(std::slice::from_ref(&id), ONE_CALL)
        .await
        .remove(0);
    assert_eq!(note["ai_status"], "done", "once the model is there: {note}");
}
