//! Tags from a note's neighbours (docs/DESIGN.md, "Tags from a note's neighbours"), end
//! to end on virtual time against the fake providers: a new note is embedded first
//! and its prompt carries the tags of the notes most like it; without embeddings the
//! prompt is the vocabulary's alone and nothing waits for a vector. The guards of issue
//! #37: vectors that do not tell notes apart offer no neighbour's tags, and an answer's
//! schema word or tag copied from the prompt without support in the note is not kept.

use inkling::actors::repository::{GetNote, GetVectorSpread};
use inkling::api::status::VectorSpread;

use crate::fake_ollama::fake_embeddings::inputs_of;
use crate::fake_ollama::{EmbedReply, FakeOllama};
use crate::harness::{PausedSystem, Pipeline};

/// A note's tags as stored.
async fn tags_of(p: &Pipeline, id: &str) -> Vec<String> {
    p.ask(&p.services.repository, GetNote { id: id.into() })
        .await
        .unwrap()
        .tags
}

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

#[actix_rt::test(system = "PausedSystem")]
async fn vectors_that_do_not_tell_notes_apart_offer_no_neighbours_tags_and_are_said_to() {
    let p = Pipeline::start(&[]).await;
    p.fake.set_embed(EmbedReply::Degenerate);
    for (body, tags) in [
        (
            "Call the plumber about the leaking kitchen tap",
            &["kitchen", "plumber"][..],
        ),
        ("File the tax return before April", &["taxes"][..]),
        (
            "Renew the passport before the summer trip",
            &["passport"][..],
        ),
    ] {
        p.fake.set_tags(tags);
        p.capture(body).await;
        p.settle().await;
    }
    p.fake.set_tags(&["garden"]);
    p.capture("The garden needs mulch before the first frost")
        .await;
    p.settle().await;
    let prompts = system_prompts(&p.fake);
    assert_eq!(prompts.len(), 4);
    assert_eq!(
        neighbours_sentence(&prompts[3]),
        None,
        "every note is \"near\" every other with these vectors: {}",
        prompts[3]
    );
    let spread = p
        .ask(&p.services.repository, GetVectorSpread)
        .await
        .unwrap();
    assert!(
        matches!(spread, Some(VectorSpread::Degenerate { notes: 4, .. })),
        "{spread:?}"
    );
}

#[actix_rt::test(system = "PausedSystem")]
async fn a_schema_word_and_a_neighbours_tag_the_note_does_not_support_are_not_kept() {
    let p = Pipeline::start(&[]).await;
    for (body, tags) in [
        (
            "Water the tomato plants in the garden",
            &["garden", "tomatoes"][..],
        ),
        ("File the tax return before April", &["taxes"][..]),
        (
            "Renew the passport before the summer trip",
            &["passport"][..],
        ),
    ] {
        p.fake.set_tags(tags);
        p.capture(body).await;
        p.settle().await;
    }
    // The model answers the neighbour's tags back, and the schema's own word.
    p.fake.set_tags(&["title", "garden", "tomatoes", "dawn"]);
    let new = p.capture("Water the tomato plants at dawn").await;
    p.settle().await;
    let prompts = system_prompts(&p.fake);
    assert_eq!(
        neighbours_sentence(&prompts[3]),
        Some(r#"Notes like this one are tagged: ["garden","tomatoes"]."#),
        "{}",
        prompts[3]
    );
    assert_eq!(
        tags_of(&p, &new).await,
        ["tomatoes", "dawn"],
        "\"title\" is the schema's; \"garden\" is the neighbour's, not this note's"
    );
}

#[actix_rt::test(system = "PausedSystem")]
async fn the_tags_in_use_are_offered_only_to_a_note_whose_text_supports_them() {
    let p = Pipeline::start(&[("INKLING_OLLAMA__EMBEDDING_MODEL", "")]).await;
    p.fake.set_tags(&["kitchen", "leaking", "plumber"]);
    p.capture("Call the plumber about the leaking kitchen tap")
        .await;
    p.settle().await;
    p.fake.set_tags(&["garden"]);
    p.capture("The garden needs mulch before the first frost")
        .await;
    p.settle().await;
    p.capture("The kitchen tap drips again").await;
    p.settle().await;
    let prompts = system_prompts(&p.fake);
    assert!(
        !prompts[1].contains("already in use"),
        "nothing in use fits a garden note, so nothing is there to copy: {}",
        prompts[1]
    );
    assert!(
        prompts[2].contains(r#"most used first: ["kitchen"]"#),
        "only the tag the note's text supports: {}",
        prompts[2]
    );
}
