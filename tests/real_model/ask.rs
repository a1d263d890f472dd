//! Ask your notes with the real model (docs/DESIGN.md, "Ask your notes"): llama.cpp's
//! server streams the instruct model SmolLM2-135M's answer as server-sent events; an
//! answer arrives after the notes, is not the question said back, and every citation
//! in it is one of the notes retrieved (the service takes out any other, and says so).

use inkling::api::ask::AskEvent;
use serde_json::json;

use crate::scene::Scene;
use crate::tools::ChatModel;

#[tokio::test]
async fn an_answer_from_the_real_model_arrives_after_the_notes_citing_only_them() {
    let _one_at_a_time = crate::ONE_AT_A_TIME.lock().await;
    let model = ChatModel::SmolLm2;
    let mut scene = Scene::with_model(model);
    scene.start_llama(model.alias()).await;
    scene.start_inkling();
    scene.provider_becomes("ready").await;
    // Imported as done (titled by a person): no title is due, so the question has the
    // model to itself (on a loaded CPU a note's title takes minutes).
    let notes = json!({ "notes": [
        { "body": "Water the tomato plants every Sunday morning before the heat",
          "title": "Watering", "ai_status": "done" },
        { "body": "The tomato bed needs compost in March", "title": "Compost",
          "ai_status": "done" },
        { "body": "File the tax return before the April deadline", "title": "Taxes",
          "ai_status": "done" },
    ]});
    let (status, imported) = scene.request("POST", "/api/notes/import", Some(&notes));
    assert_eq!(status, 200, "{imported}");
    let (_, listed) = scene.request("GET", "/api/notes", None);
    let id_of = |body_start: &str| {
        listed
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["body"].as_str().unwrap().starts_with(body_start))
            .map(|n| n["id"].as_str().unwrap().to_string())
            .unwrap()
    };
    let (water, tax) = (id_of("Water"), id_of("File"));

    let (status, events) = scene.ask("When do I water the tomato plants?");
    assert_eq!(status, 200, "{events:?}");
    println!("the answer's events: {events:#?}");
    let AskEvent::Notes { notes } = &events[0] else {
        panic!("the notes first: {events:?}");
    };
    let ids: Vec<&str> = notes.iter().map(|n| n.note.id.as_str()).collect();
    assert_eq!(ids.first(), Some(&water.as_str()), "the best match first");
    assert!(
        !ids.contains(&tax.as_str()),
        "the tax note is not about tomatoes"
    );

    let answer: String = events
        .iter()
        .filter_map(|e| match e {
            AskEvent::Answer { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert!(!answer.trim().is_empty(), "an answer arrived: {events:?}");
    assert!(
        matches!(events.last(), Some(AskEvent::Done { answered: true, .. })),
        "it came whole: {events:?}"
    );
    // Every citation left names a note shown.
    let cited: Vec<usize> = answer
        .split('[')
        .skip(1)
        .filter_map(|rest| rest.split(']').next()?.trim().parse().ok())
        .collect();
    assert!(
        cited.iter().all(|n| (1..=notes.len()).contains(n)),
        "citations {cited:?} of {} notes in: {answer}",
        notes.len()
    );
    // The question and the answer were not stored.
    let (_, listed) = scene.request("GET", "/api/notes", None);
    assert_eq!(listed.as_array().map(Vec::len), Some(3));
}
