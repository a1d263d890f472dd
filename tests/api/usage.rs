//! Trash, restore and keep over HTTP, and the usage log's report and export.

use serde_json::{json, Value};

use crate::helpers::{spawn_app, spawn_app_with, TestApp};

fn events(app: &TestApp) -> Vec<(String, Value)> {
    let dir = app.data_dir.path().join("telemetry");
    let mut lines = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        for line in std::fs::read_to_string(entry.unwrap().path())
            .unwrap()
            .lines()
        {
            let record: Value = serde_json::from_str(line).unwrap();
            lines.push((
                record["kind"].as_str().unwrap().to_string(),
                record["payload"].clone(),
            ));
        }
    }
    lines
}

fn count(app: &TestApp, kind: &str) -> usize {
    events(app).iter().filter(|(k, _)| k == kind).count()
}

/// A barrier: the events of everything answered so far are in the log. Each request
/// sends its event to the usage log before it answers, and `GET /api/stats` reads the
/// log through the same first-in, first-out mailbox after them.
async fn settle(app: &TestApp) {
    let (status, _) = app.get("/api/stats").await;
    assert_eq!(status, 200);
}

#[actix_rt::test]
async fn trash_and_restore_move_a_note_and_log_it_once() {
    let app = spawn_app().await;
    let note = app.capture("to the trash and back").await;
    let id = note["id"].as_str().unwrap();

    let (status, trashed) = app
        .post_json(&format!("/api/notes/{id}/trash"), &json!({}))
        .await;
    assert_eq!(status, 200);
    assert!(trashed["deleted_at"].is_string());
    let (_, again) = app
        .post_json(&format!("/api/notes/{id}/trash"), &json!({}))
        .await;
    assert_eq!(
        again["deleted_at"], trashed["deleted_at"],
        "trashing twice changes nothing"
    );
    let (_, active) = app.get("/api/notes").await;
    assert_eq!(active, json!([]));
    let (_, trash) = app.get("/api/notes?trash=true").await;
    assert_eq!(trash.as_array().unwrap().len(), 1);
    let (_, status_body) = app.get("/api/status").await;
    assert_eq!(
        status_body["counts"]["pending"], 0,
        "a trashed note is not counted"
    );

    let (status, restored) = app
        .post_json(&format!("/api/notes/{id}/restore"), &json!({}))
        .await;
    assert_eq!(status, 200);
    assert!(restored["deleted_at"].is_null());
    settle(&app).await;
    assert_eq!(count(&app, "note_trashed"), 1);
    assert_eq!(count(&app, "note_restored"), 1);
    assert_eq!(count(&app, "note_captured"), 1);

    let (status, _) = app.post_json("/api/notes/nope/trash", &json!({})).await;
    assert_eq!(status, 404);
}

#[actix_rt::test]
async fn keep_takes_a_note_out_of_the_expired_count() {
    let app = spawn_app_with(&[("INKLING_EXPIRY__CHOICE", "on")]).await;
    let note = app.capture("old but precious").await;
    app.clock.advance(chrono::Duration::days(40));
    let (_, status) = app.get("/api/status").await;
    assert_eq!(status["counts"]["expired"], 1);

    let id = note["id"].as_str().unwrap();
    let (code, kept) = app
        .post_json(&format!("/api/notes/{id}/keep"), &json!({}))
        .await;

    assert_eq!(code, 200);
    assert!(kept["kept_at"].is_string());
    let (_, status) = app.get("/api/status").await;
    assert_eq!(status["counts"]["expired"], 0);
}

#[actix_rt::test]
async fn stats_returns_the_markdown_report_of_the_log() {
    let app = spawn_app().await;
    app.capture("one").await;
    app.capture("two").await;
    settle(&app).await;

    let response = awc::Client::new()
        .get(format!("{}/api/stats", app.address))
        .bearer_auth(&app.token)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let content_type = response
        .headers()
        .get("content-type")
        .unwrap()
        .to_str()
        .unwrap();
    assert!(content_type.starts_with("text/markdown"), "{content_type}");
    let mut response = response;
    let text = String::from_utf8(response.body().await.unwrap().to_vec()).unwrap();
    assert!(text.contains("| 2026-03-01 | 2 | 0 |"), "{text}");
    assert!(
        text.contains("AI manual retry usage: 0 times / 0 notes total"),
        "{text}"
    );
    assert!(app.data_dir.path().join("stats.md").exists());
}

#[actix_rt::test]
async fn export_writes_a_new_folder_with_the_log_and_stats_and_logs_itself() {
    let app = spawn_app().await;
    app.capture("exported").await;
    settle(&app).await;

    let (status, body) = app
        .post_raw("/api/usage-log/export", "application/json", Vec::new())
        .await;

    assert_eq!(status, 200, "{body}");
    let path = std::path::PathBuf::from(body["path"].as_str().unwrap());
    assert!(path.starts_with(app.data_dir.path().join("exports")));
    assert!(path.join("stats.md").exists());
    assert!(path.join("events-2026-03-01.jsonl").exists());
    settle(&app).await;
    assert_eq!(count(&app, "usage_log_exported"), 1);

    let elsewhere = tempfile::tempdir().unwrap();
    let (_, body) = app
        .post_json("/api/usage-log/export", &json!({ "out": elsewhere.path() }))
        .await;
    assert!(body["path"]
        .as_str()
        .unwrap()
        .starts_with(elsewhere.path().to_str().unwrap()));
    let (status, _) = app
        .post_json("/api/usage-log/export", &json!({ "to": "x" }))
        .await;
    assert_eq!(status, 400, "unknown fields are refused");
}

#[actix_rt::test]
async fn trash_expired_moves_all_expired_notes_in_one_call() {
    let app = spawn_app_with(&[("INKLING_EXPIRY__CHOICE", "on")]).await;
    let one = app.capture("old one").await;
    let two = app.capture("old two").await;
    app.clock.advance(chrono::Duration::days(31));
    app.capture("fresh").await;

    let (status, body) = app.post_json("/api/inbox/trash-expired", &json!({})).await;

    assert_eq!(status, 200);
    assert_eq!(body["count"], 2);
    let mut ids: Vec<&str> = body["ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    ids.sort();
    let mut expected = vec![one["id"].as_str().unwrap(), two["id"].as_str().unwrap()];
    expected.sort();
    assert_eq!(ids, expected, "the ids, for an undo");
    let (_, status) = app.get("/api/status").await;
    assert_eq!(status["counts"]["expired"], 0);
    let (_, active) = app.get("/api/notes").await;
    assert_eq!(active.as_array().unwrap().len(), 1);
    settle(&app).await;
    assert_eq!(count(&app, "note_trashed"), 2);
}

#[actix_rt::test]
async fn keep_expired_keeps_every_note_past_expiry_in_one_call() {
    let app = spawn_app_with(&[("INKLING_EXPIRY__CHOICE", "on")]).await;
    let one = app.capture("old one").await;
    app.clock.advance(chrono::Duration::days(31));
    let fresh = app.capture("fresh").await;

    let (status, body) = app.post_json("/api/inbox/keep-expired", &json!({})).await;

    assert_eq!(status, 200);
    assert_eq!(body["count"], 1);
    assert_eq!(body["ids"], json!([one["id"]]));
    let (_, status) = app.get("/api/status").await;
    assert_eq!(status["counts"]["expired"], 0);
    let (_, notes) = app.get("/api/notes").await;
    for note in notes.as_array().unwrap() {
        let kept = note["kept_at"].is_string();
        assert_eq!(kept, note["id"] == one["id"], "only the old one: {note}");
        assert_eq!(note["expired"], false);
    }
    assert!(notes
        .as_array()
        .unwrap()
        .iter()
        .any(|n| n["id"] == fresh["id"]));
    // Nothing past expiry: nothing to keep.
    let (status, body) = app.post_json("/api/inbox/keep-expired", &json!({})).await;
    assert_eq!((status, body["count"].clone()), (200, json!(0)));
}
