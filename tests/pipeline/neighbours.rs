//! Tags from a note's neighbours (docs/DESIGN.md, "Tags from a note's neighbours"), end
//! to end on virtual time against the fake providers: a new note is embedded first
//! and its prompt carries the tags of the notes most like it; without embeddings the
//! prompt is the vocabulary's alone and nothing waits for a vector.

use crate::fake_ollama::fake_embeddings::inputs_of;
use crate::fake_ollama::{EmbedReply, FakeOllama};
use crate::harness::{PausedSystem, Pipeline};

/// The system prompt of each chat call the fake received, in order.
fn system_prompts(fake: &FakeOllama) -> Vec<String> {
    fake.calls()
        .iter()
        .map(|call| {
            call.request["messages"][0]["content"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect()
}

/// The neighbours' sentence of a system prompt, if it has one.
fn neighbours_sentence(system: &str) -> Option<&str> {
    let start = system.find("Notes like this one are tagged:")?;
    let end = system[start..].find("].")? + start + 2;
    Some(&system[start..end])
}

#[actix_rt::test(system = "PausedSystem")]
async fn a_new_notes_prompt_carries_the_tags_of_the_notes_most_like_it() {
    let p = Pipeline::start(&[]).await;
    p.fake.set_tags(&["garden", "tomatoes"]);
    p.capture("Water the tomato plants in the garden").await;
    p.settle().await;
    p.fake.set_tags(&["taxes"]);
    p.capture("File the tax return before April").await;
    p.settle().await;
    p.fake.set_tags(&["misc"]);
    let new = p.capture("Tomato plants in the garden need compost").await;
    p.settle().await;

    let prompts = system_prompts(&p.fake);
    assert_eq!(prompts.len(), 3);
    assert_eq!(
        neighbours_sentence(&prompts[0]),
        None,
        "the first note has no neighbours: {}",
        prompts[0]
    );
    assert_eq!(
        neighbours_sentence(&prompts[2]),
        Some(r#"Notes like this one are tagged: ["garden","tomatoes"]."#),
        "the tomato note's neighbour, not the tax note: {}",
        prompts[2]
    );
    assert!(
        prompts[2].contains("Tags already in use"),
        "the vocabulary stays beside them: {}",
        prompts[2]
    );
    // Each note was embedded on its own, before its title (its vector was there for
    // the prompt), and not again after it.
    let inputs: Vec<Vec<String>> = p.fake.embed_calls().iter().map(inputs_of).collect();
    assert_eq!(
        inputs,
        [
            ["Water the tomato plants in the garden"],
            ["File the tax return before April"],
            ["Tomato plants in the garden need compost"],
        ]
    );
    assert_eq!(p.note(&new).status, "done");
}

#[actix_rt::test(system = "PausedSystem")]
async fn without_embeddings_the_prompt_is_the_vocabularys_and_nothing_waits_for_a_vector() {
    let p = Pipeline::start(&[("INKLING_OLLAMA__EMBEDDING_MODEL", "")]).await;
    p.fake.set_tags(&["garden"]);
    p.capture("Water the tomato plants in the garden").await;
    p.settle().await;
    let second = p.capture("Tomato plants in the garden need compost").await;
    p.settle().await;
    assert_eq!(p.note(&second).status, "done");
    assert!(p.fake.embed_calls().is_empty(), "no vectors asked for");
    let prompts = system_prompts(&p.fake);
    assert_eq!(neighbours_sentence(&prompts[1]), None, "{}", prompts[1]);
    assert!(
        prompts[1].contains(r#"most used first: ["garden"]"#),
        "{}",
        prompts[1]
    );
}

#[actix_rt::test(system = "PausedSystem")]
async fn while_the_embedding_model_is_missing_titles_go_ahead_without_neighbours() {
    let p = Pipeline::start(&[]).await;
    p.fake.set_embed(EmbedReply::ModelMissing);
    p.fake.set_tags(&["garden"]);
    p.capture("Water the tomato plants in the garden").await;
    p.settle().await;
    let second = p.capture("Tomato plants in the garden need compost").await;
    p.settle().await;
    assert_eq!(p.note(&second).status, "done", "the title is not held up");
    assert_eq!(
        p.fake.embed_calls().len(),
        1,
        "asked once; then the missing model is a state, not asked for each note"
    );
    let prompts = system_prompts(&p.fake);
    assert_eq!(neighbours_sentence(&prompts[1]), None, "{}", prompts[1]);
}
