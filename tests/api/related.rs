//! `GET /api/notes/{id}/related` and `inkling related ID` (docs/DESIGN.md, "Related
//! notes"), against a fake Ollama whose embeddings are bag-of-words vectors, so which
//! notes are related is known.

use serde_json::{json, Value};

use crate::desktop::fake_on_a_thread_with;
use crate::eventually::eventually;
use crate::fake_ollama::{FakeOllama, Reply};
use crate::helpers::{free_port, spawn_app, spawn_app_with, ServiceProcess, TestApp};

async fn capture(app: &TestApp, body: &str) -> String {
    let (status, note) = app.post_json("/api/notes", &json!({ "body": body })).await;
    assert_eq!(status, 201, "{note}");
    note["id"].as_str().unwrap().to_string()
}

/// The related notes of `id` once it has its vector.
async fn related_once_embedded(app: &TestApp, id: &str) -> Value {
    let path = format!("/api/notes/{id}/related");
    eventually("the note's vector", || async {
        let (status, body) = app.get(&path).await;
        assert_eq!(status, 200, "{body}");
        (body["embedded"] == true).then_some(body)
    })
    .await
}

#[actix_rt::test]
async fn related_notes_are_the_nearest_best_first_with_their_similarity_and_none_below_the_floor() {
    let fake = FakeOllama::start_new().await;
    let app = spawn_app_with(&[("INKLING_OLLAMA__URL", &fake.url())]).await;
    let tomato = capture(&app, "Water the tomato plants in the garden").await;
    let compost = capture(&app, "Tomato plants in the garden need compost").await;
    let garden = capture(&app, "The garden: tomato plants and beans").await;
    let tax = capture(&app, "File the tax return before April").await;
    for id in [&compost, &garden, &tax] {
        related_once_embedded(&app, id).await;
    }

    let found = related_once_embedded(&app, &tomato).await;
    let ids: Vec<&str> = found["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 2, "the tax note is below the floor: {found}");
    assert!(ids.contains(&compost.as_str()) && ids.contains(&garden.as_str()));
    let similarities: Vec<f64> = found["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["similarity"].as_f64().unwrap())
        .collect();
    assert!(
        similarities.windows(2).all(|w| w[0] >= w[1]),
        "{similarities:?}"
    );
    assert!(similarities.iter().all(|s| (0.5..=1.0).contains(s)));
    // Each is a note as every answer carries it.
    assert!(found["notes"][0]["body"].is_string() && found["notes"][0]["expired"] == false);
    assert_eq!(
        related_once_embedded(&app, &tax).await,
        json!({ "notes": [], "embedded": true })
    );

    // A note in the trash is no one's related note.
    let (status, _) = app
        .post_json(&format!("/api/notes/{compost}/trash"), &json!({}))
        .await;
    assert_eq!(status, 200);
    let found = related_once_embedded(&app, &tomato).await;
    assert_eq!(found["notes"].as_array().unwrap().len(), 1, "{found}");
}

#[actix_rt::test]
async fn a_note_without_its_vector_says_so_and_an_unknown_note_is_404() {
    // Nothing listens where Ollama should be: no vector is made.
    let app = spawn_app().await;
    let id = capture(&app, "A note with no model around").await;
    let (status, body) = app.get(&format!("/api/notes/{id}/related")).await;
    assert_eq!(
        (status, body),
        (200, json!({ "notes": [], "embedded": false }))
    );
    let (status, body) = app
        .get("/api/notes/01a23b85-0000-7000-8000-000000000000/related")
        .await;
    assert_eq!(status, 404, "{body}");
    assert!(body["error"].is_string());
}

#[test]
fn inkling_related_prints_each_related_note_with_its_similarity() {
    let (url, _calls) = fake_on_a_thread_with(Reply::Ok, |_| {});
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let service = ServiceProcess::start_with(dir.path(), port, &[("INKLING_OLLAMA__URL", &url)]);
    let id_of = |output: std::process::Output| {
        let note: Value = serde_json::from_slice(&output.stdout).unwrap();
        note["id"].as_str().unwrap().to_string()
    };
    let first = id_of(service.cli(&["--json", "capture", "Invoice for the plumber"]));
    let second = id_of(service.cli(&["--json", "capture", "Plumber invoice paid"]));
    // A note is embedded just before its title is written: its vector may be found
    // while it is still pending.
    let printed =
        actix_rt::System::new().block_on(eventually("both notes' vectors and titles", || {
            let output = service.cli(&["related", &first]);
            async move {
                let text = String::from_utf8_lossy(&output.stdout).into_owned();
                (text.contains("%") && text.contains("done")).then_some(text)
            }
        }));
    let line = printed.lines().next().unwrap();
    assert!(line.trim_start().starts_with("82 %"), "{printed}");
    // `82 %  <the shortest start of its id>  done  …`
    let shown = line.split_whitespace().nth(2).unwrap_or_default();
    assert!(
        shown.len() >= 8 && second.starts_with(shown) && line.contains("done"),
        "{printed}"
    );

    let unknown = service.cli(&["related", "no-such-note"]);
    assert_eq!(unknown.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("no-such-note"));
}

#[test]
fn inkling_related_of_a_note_not_indexed_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let service = ServiceProcess::start(dir.path(), port);
    let captured = service.cli(&["--json", "capture", "A thought"]);
    let note: Value = serde_json::from_slice(&captured.stdout).unwrap();
    let output = service.cli(&["related", note["id"].as_str().unwrap()]);
    assert!(output.status.success());
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).trim(),
        "no related notes yet: this note is not indexed yet (it will be in the background, \
         after the AI's titles)"
    );
}

#[test]
fn inkling_related_of_a_note_with_no_near_note_says_there_is_none() {
    let (url, _calls) = fake_on_a_thread_with(Reply::Ok, |_| {});
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let service = ServiceProcess::start_with(dir.path(), port, &[("INKLING_OLLAMA__URL", &url)]);
    let captured = service.cli(&["--json", "capture", "The only note so far"]);
    let note: Value = serde_json::from_slice(&captured.stdout).unwrap();
    let id = note["id"].as_str().unwrap().to_string();
    // Once the note has its vector, the answer is that nothing is near: not "yet".
    let printed = actix_rt::System::new().block_on(eventually("the note's vector", || {
        let output = service.cli(&["related", &id]);
        async move {
            let text = String::from_utf8_lossy(&output.stdout).trim().to_string();
            (!text.starts_with("no related notes yet")).then_some(text)
        }
    }));
    assert_eq!(printed, "no other note is near this one in meaning");
}
