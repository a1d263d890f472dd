//! The notes' vectors from the real model (docs/DESIGN.md, "Related notes"): llama.cpp's
//! server started with `--embeddings --pooling mean` serves both the chat and
//! `/v1/embeddings` (this build does; Gemma 3 270M's file names no pooling, so it must
//! be given one). Notes about the same thing come out related; a server started without
//! embeddings is a state with its fix, and the notes are done all the same.

use std::time::Duration;

use serde_json::Value;

use crate::eventually::eventually_within_every;
use crate::llama::MODEL;
use crate::scene::{Scene, HEALTH_CHANGE, ONE_CALL};

fn ids_of(found: &Value) -> Vec<String> {
    found["notes"]
        .as_array()
        .map(|notes| {
            notes
                .iter()
                .map(|n| n["id"].as_str().unwrap_or_default().to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn notes_about_the_same_thing_come_out_related_from_the_real_model() {
    let _one_at_a_time = crate::ONE_AT_A_TIME.lock().await;
    let mut scene = Scene::new();
    scene.start_llama_with_embeddings(MODEL).await;
    scene.start_inkling_with(&format!("embedding_model = \"{MODEL}\""));
    scene.provider_becomes("ready").await;

    let garden = scene.capture("Water the tomato plants in the garden before the heat");
    let tax = scene.capture("File the tax return before the April deadline");
    let tomatoes = scene.capture("The tomato plants in my garden need stakes and compost");
    let notes = scene
        .settled(
            &[garden.clone(), tax.clone(), tomatoes.clone()],
            ONE_CALL * 3,
        )
        .await;
    assert!(notes.iter().all(|n| n["ai_status"] == "done"), "{notes:?}");

    let found = scene.related_once_embedded(&garden).await;
    println!("related to the garden note: {found}");
    let ids = ids_of(&found);
    assert_eq!(
        ids.first(),
        Some(&tomatoes),
        "the other tomato note is nearest: {found}"
    );
    let similarity = |id: &str| {
        found["notes"]
            .as_array()
            .and_then(|notes| notes.iter().find(|n| n["id"] == id))
            .and_then(|n| n["similarity"].as_f64())
    };
    if let Some(tax_similarity) = similarity(&tax) {
        assert!(
            similarity(&tomatoes).unwrap_or(0.0) > tax_similarity,
            "{found}"
        );
    }
    let status = scene.status();
    assert_eq!(
        status["worker"]["embeddings"]["state"], "up_to_date",
        "{status}"
    );
}

#[tokio::test]
async fn a_server_without_embeddings_is_a_state_with_its_fix_and_the_notes_are_done() {
    let _one_at_a_time = crate::ONE_AT_A_TIME.lock().await;
    let mut scene = Scene::new();
    scene.start_llama(MODEL).await;
    scene.start_inkling_with(&format!("embedding_model = \"{MODEL}\""));
    scene.provider_becomes("ready").await;
    let id = scene.capture("A note while the server makes no vectors");
    let notes = scene.settled(std::slice::from_ref(&id), ONE_CALL).await;
    assert_eq!(notes[0]["ai_status"], "done", "{}", notes[0]);
    let what = "GET /api/status with worker.embeddings.state \"not_served\"";
    let embeddings =
        eventually_within_every(HEALTH_CHANGE, Duration::from_millis(250), what, || {
            let embeddings = scene.status()["worker"]["embeddings"].clone();
            async move { (embeddings["state"] == "not_served").then_some(embeddings) }
        })
        .await;
    assert!(
        embeddings["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("--embeddings"),
        "the server's own words: {embeddings}"
    );
    let (status, found) = scene.request("GET", &format!("/api/notes/{id}/related"), None);
    assert_eq!(status, 200);
    assert_eq!(found["embedded"], false, "{found}");
}
