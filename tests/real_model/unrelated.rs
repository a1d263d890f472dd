//! One note's tags never spread to most notes (issue #37): eight unrelated notes through
//! the instruct model SmolLM2-135M, after a note about a leaking kitchen tap tagged
//! `kitchen`, `leaking`, `plumber` (imported so, whatever the model would make of it).
//! Before the guards (`src/tags/guards.rs`), with the tags in use in every prompt, 7 of
//! 8 unrelated notes got those tags. What the model made of each note is printed for
//! whoever reads the run (`--nocapture`).

use std::collections::HashMap;

use serde_json::json;

use crate::notes::assert_tags_follow_the_rules;
use crate::scene::{Scene, ONE_CALL};
use crate::texts;
use crate::tools::ChatModel;

/// The first note's tags, as a real day left them (the issue's).
const FIRST_TAGS: [&str; 3] = ["kitchen", "leaking", "plumber"];

/// Notes about eight different things, none about a kitchen or a plumber.
pub const UNRELATED: [&str; 8] = [
    "Book a table for four at the Thai place on Saturday evening",
    "The garden needs mulch before the first frost",
    "Recipe: lentil soup with cumin, lemon and a lot of garlic",
    "Return the two overdue library books and pay the fine",
    "Bug: the export button does nothing on the settings page",
    "Compare the two phone plans before the contract ends in March",
    "Read the chapter on indexes before Thursday's study group",
    "File the tax return before the April deadline",
];

/// The most notes of `notes` that share one tag, and that tag.
pub fn most_shared_tag(notes: &[serde_json::Value]) -> (usize, String) {
    let mut carried: HashMap<String, usize> = HashMap::new();
    for note in notes {
        for tag in note["tags"].as_array().into_iter().flatten() {
            let key = inkling::tags::key(tag.as_str().unwrap_or_default());
            *carried.entry(key).or_default() += 1;
        }
    }
    carried
        .into_iter()
        .map(|(tag, count)| (count, tag))
        .max()
        .unwrap_or_default()
}

#[tokio::test]
async fn the_first_notes_tags_do_not_spread_to_unrelated_notes() {
    let _one_at_a_time = crate::ONE_AT_A_TIME.lock().await;
    let model = ChatModel::SmolLm2;
    let mut scene = Scene::with_model(model);
    scene.start_llama(model.alias()).await;
    scene.start_inkling();
    scene.provider_becomes("ready").await;

    let first = json!({ "notes": [{
        "body": texts::ENGLISH, "title": "Plumber", "tags": FIRST_TAGS, "ai_status": "done",
    }]});
    let (status, imported) = scene.request("POST", "/api/notes/import", Some(&first));
    assert_eq!(status, 200, "{imported}");
    let ids: Vec<String> = UNRELATED.iter().map(|body| scene.capture(body)).collect();
    let notes = scene.settled(&ids, ONE_CALL * UNRELATED.len() as u32).await;

    let first_tags: Vec<String> = FIRST_TAGS.iter().map(|t| inkling::tags::key(t)).collect();
    let mut with_first_tags = 0;
    for (note, body) in notes.iter().zip(UNRELATED) {
        println!("{body:?} -> {} {}", note["title"], note["tags"]);
        assert_eq!(note["ai_status"], "done", "{note}");
        assert_tags_follow_the_rules(note);
        let tags = note["tags"].as_array().into_iter().flatten();
        if tags
            .filter_map(|t| t.as_str())
            .any(|t| first_tags.contains(&inkling::tags::key(t)))
        {
            with_first_tags += 1;
        }
    }
    let (most, tag) = most_shared_tag(&notes);
    println!(
        "{with_first_tags} of {} notes carry a tag of the first note; the most shared tag, \
         {tag:?}, is on {most}",
        notes.len()
    );
    assert!(
        with_first_tags <= 1,
        "{with_first_tags} of {} unrelated notes got the first note's tags {first_tags:?}",
        notes.len()
    );
    assert!(
        most * 2 <= notes.len(),
        "the tag {tag:?} is on {most} of {} unrelated notes",
        notes.len()
    );
}
