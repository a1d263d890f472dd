//! The hybrid search with the real model (docs/DESIGN.md, "Hybrid search"): llama.cpp's
//! server started with `--embeddings --pooling mean` embeds the search's words as it
//! embedded the notes, and the search answers with the meaning used (no quiet line),
//! the note with the words among its hits.

use std::time::Duration;

use serde_json::Value;

use crate::eventually::eventually_within_every;
use crate::llama::MODEL;
use crate::scene::{Scene, ONE_CALL};

/// How long the notes' vectors may take after their titles (a call of ~1 s).
const VECTORS: Duration = Duration::from_secs(120);

#[tokio::test]
async fn a_hybrid_search_answers_with_the_meaning_used_from_the_real_model() {
    let _one_at_a_time = crate::ONE_AT_A_TIME.lock().await;
    let mut scene = Scene::new();
    scene.start_llama_with_embeddings(MODEL).await;
    scene.start_inkling_with(&format!("embedding_model = \"{MODEL}\""));
    scene.provider_becomes("ready").await;

    let garden = scene.capture("Water the tomato plants in the garden before the heat");
    let tax = scene.capture("File the tax return before the April deadline");
    let notes = scene
        .settled(&[garden.clone(), tax.clone()], ONE_CALL * 2)
        .await;
    assert!(notes.iter().all(|n| n["ai_status"] == "done"), "{notes:?}");

    // Once every note has its vector, the search's words are embedded and used.
    let answer: Value = eventually_within_every(
        VECTORS,
        Duration::from_millis(500),
        "a search with the meaning used",
        || {
            let (status, body) = scene.request("GET", "/api/search?q=tomato%20garden", None);
            assert_eq!(status, 200, "{body}");
            async move { body["keyword_only"].is_null().then_some(body) }
        },
    )
    .await;
    println!("the hybrid search's answer: {answer}");
    let hits = answer["hits"].as_array().expect("hits");
    let first = &hits[0];
    assert_eq!(first["id"], garden.as_str(), "{answer}");
    assert!(
        first["found_by"] == "words" || first["found_by"] == "both",
        "{answer}"
    );
    assert!(hits
        .iter()
        .all(|hit| ["words", "meaning", "both"].contains(&hit["found_by"].as_str().unwrap_or(""))));
    let status = scene.status();
    assert_eq!(
        status["worker"]["embeddings"]["state"], "up_to_date",
        "{status}"
    );
}
