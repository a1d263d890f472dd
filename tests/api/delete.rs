//! Delete for good (docs/DESIGN.md, "Data"): only from the trash, and the text is gone
//! from the database files, the search index and the write-ahead log included.

use serde_json::json;

use crate::helpers::{spawn_app, TestApp};

const SECRET: &str = "my bank PIN is 4711-zebra-quartz";

/// Whether any of the database's files holds `text`.
fn in_database_files(app: &TestApp, text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for suffix in ["", "-wal", "-shm"] {
        let path = format!("{}{suffix}", app.db_path().display());
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        if bytes.windows(text.len()).any(|w| w == text.as_bytes()) {
            found.push(path);
        }
    }
    found
}

fn invariants(app: &TestApp) {
    let store = inkling::storage::Store::open(&app.db_path(), 30).unwrap();
    assert_eq!(store.invariant_violations().unwrap(), Vec::<String>::new());
}

#[actix_rt::test]
async fn a_note_deleted_for_good_leaves_no_trace_in_the_database_files() {
    let app = spawn_app().await;
    let note = app.capture(SECRET).await;
    let id = note["id"].as_str().unwrap();
    app.capture("an ordinary note that stays").await;
    let (status, _) = app
        .post_json(&format!("/api/notes/{id}/trash"), &json!({}))
        .await;
    assert_eq!(status, 200);
    assert!(
        !in_database_files(&app, SECRET).is_empty(),
        "the text is stored first"
    );

    let (status, _) = app.delete(&format!("/api/notes/{id}")).await;
    assert_eq!(status, 204);

    assert_eq!(in_database_files(&app, SECRET), Vec::<String>::new());
    assert_eq!(in_database_files(&app, "4711-zebra"), Vec::<String>::new());
    assert_eq!(app.get(&format!("/api/notes/{id}")).await.0, 404);
    let (_, hits) = app.get("/api/notes?q=zebra&trash=true").await;
    assert_eq!(hits, json!([]));
    let (_, kept) = app.get("/api/notes?q=ordinary").await;
    assert_eq!(kept.as_array().unwrap().len(), 1);
    invariants(&app);
}

#[actix_rt::test]
async fn only_a_note_in_the_trash_can_be_deleted_and_a_refusal_changes_nothing() {
    let app = spawn_app().await;
    let note = app.capture("still active").await;
    let id = note["id"].as_str().unwrap();

    let (status, body) = app.delete(&format!("/api/notes/{id}")).await;
    assert_eq!(status, 409, "{body}");
    assert!(body["error"]
        .as_str()
        .unwrap()
        .contains("move it to the trash first"));
    assert_eq!(app.get(&format!("/api/notes/{id}")).await.0, 200);

    let (status, body) = app.delete("/api/notes/no-such-note").await;
    assert_eq!(status, 404, "{body}");
    assert_eq!(app.note_count_in_db(), 1);
}

#[actix_rt::test]
async fn emptying_the_trash_deletes_every_trashed_note_for_good_and_says_how_many() {
    let app = spawn_app().await;
    for text in ["first 4711-zebra-quartz", "second 4711-zebra-quartz"] {
        let note = app.capture(text).await;
        let id = note["id"].as_str().unwrap();
        app.post_json(&format!("/api/notes/{id}/trash"), &json!({}))
            .await;
    }
    app.capture("active").await;

    let (status, emptied) = app.post_json("/api/trash/empty", &json!({})).await;
    assert_eq!((status, emptied["count"].as_u64()), (200, Some(2)));
    assert_eq!(app.note_count_in_db(), 1);
    assert_eq!(in_database_files(&app, "4711-zebra"), Vec::<String>::new());
    let (_, again) = app.post_json("/api/trash/empty", &json!({})).await;
    assert_eq!(again["count"], 0);
    invariants(&app);
}
