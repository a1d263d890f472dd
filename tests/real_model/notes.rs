//! Five notes of every kind through the real model, the instruct model SmolLM2-135M (the
//! task needs one; Gemma 3 270M, a base model, cannot do it): all end done, titled and
//! tagged by inkling's rules, none failed; the article longer than the server's context
//! is read from its beginning (the part that fits), not refused.

use crate::scene::{Scene, ONE_CALL};
use crate::texts;
use crate::tools::ChatModel;

/// ~12,000 characters of English prose: ~2,400 tokens, more than the server's 2,048.
const ARTICLE_CHARS: usize = 12_000;

#[tokio::test]
async fn five_notes_of_every_kind_end_done_titled_and_tagged() {
    let _one_at_a_time = crate::ONE_AT_A_TIME.lock().await;
    let model = ChatModel::SmolLm2;
    let mut scene = Scene::with_model(model);
    scene.start_llama(model.alias()).await;
    scene.start_inkling();
    scene.provider_becomes("ready").await;

    let article = texts::article(ARTICLE_CHARS);
    let bodies = [
        texts::ENGLISH,
        texts::KOREAN,
        texts::CHECKLIST,
        texts::ONE_WORD,
        &article,
    ];
    let ids: Vec<String> = bodies.iter().map(|body| scene.capture(body)).collect();

    // One call at a time on this CPU; the article's is the longest.
    let notes = scene.settled(&ids, ONE_CALL * 5).await;

    for (note, body) in notes.iter().zip(bodies) {
        let shown = body.chars().take(40).collect::<String>();
        // What the model made of it, for whoever reads the run (`--nocapture`).
        println!(
            "{shown:?} -> {} {} (read {} characters)",
            note["title"], note["tags"], note["ai_read_chars"]
        );
        assert_eq!(
            note["ai_status"], "done",
            "the note {shown:?} is not done: {note}"
        );
        let title = note["title"].as_str().unwrap_or_default();
        assert!(!title.trim().is_empty(), "no title for {shown:?}: {note}");
        assert_tags_follow_the_rules(note);
    }
    // The model reads what fits of the article: its first `ai_read_chars` characters.
    let article_note = &notes[4];
    let read = article_note["ai_read_chars"].as_u64().unwrap_or_else(|| {
        panic!("the article has no ai_read_chars: it cannot have been read whole: {article_note}")
    });
    let length = article.chars().count() as u64;
    assert!(
        0 < read && read < length,
        "ai_read_chars {read} of a {length}-character article: {article_note}"
    );
}

/// The note's tags are what inkling keeps: each a normalised tag (`src/tags.rs`: one
/// lowercase line of 1 to 32 characters, no comma), no two the same tag, five at most,
/// none of the schema's words (`src/tags/guards.rs`).
pub fn assert_tags_follow_the_rules(note: &serde_json::Value) {
    let tags = note["tags"]
        .as_array()
        .unwrap_or_else(|| panic!("the note has no tag list: {note}"));
    assert!(tags.len() <= 5, "more than five tags from the AI: {note}");
    let mut keys = std::collections::HashSet::new();
    for tag in tags {
        let tag = tag
            .as_str()
            .unwrap_or_else(|| panic!("a tag that is not text: {note}"));
        assert_eq!(
            inkling::tags::normalize(tag).as_deref(),
            Ok(tag),
            "the tag {tag:?} breaks inkling's tag rules: {note}"
        );
        assert!(
            keys.insert(inkling::tags::key(tag)),
            "the tag {tag:?} twice: {note}"
        );
        assert!(
            !inkling::tags::guards::is_schema_word(tag),
            "the schema's word {tag:?} as a tag: {note}"
        );
    }
}
