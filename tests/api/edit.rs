//! Editing a note and tidying tags over HTTP (docs/API.md): what is accepted, what is
//! refused (and then nothing is written), and what the AI does after.

use serde_json::{json, Value};

use crate::helpers::{spawn_app, spawn_app_with, TestApp};

async fn note(app: &TestApp, id: &str) -> Value {
    app.note(id).await
}

#[actix_rt::test]
async fn patch_sets_body_title_and_tags_and_a_new_body_goes_back_to_the_ai() {
    let app = spawn_app().await;
    let id = app.capture("call the plumber").await["id"]
        .as_str()
        .unwrap()
        .to_string();
    app.clock.advance(chrono::Duration::seconds(5));

    let (status, edited) = app
        .patch_json(
            &format!("/api/notes/{id}"),
            &json!({ "title": " Plumber ", "tags": ["Home", "home", "Repairs"] }),
        )
        .await;
    assert_eq!(status, 200, "{edited}");
    assert_eq!(edited["title"], "Plumber");
    assert_eq!(edited["tags"], json!(["home", "repairs"]));
    assert_eq!(edited["title_set_by_user"], true);
    assert_eq!(edited["tags_set_by_user"], true);
    assert_eq!(edited["updated_at"], "2026-03-01T12:00:05.000Z");

    let (status, edited) = app
        .patch_json(
            &format!("/api/notes/{id}"),
            &json!({ "body": "call the plumber on Monday" }),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(edited["body"], "call the plumber on Monday");
    assert_eq!(edited["ai_status"], "pending");
    assert_eq!(edited["title"], "Plumber", "the user's title stays");
    assert_eq!(note(&app, &id).await, edited);

    let (_, tags) = app.get("/api/tags").await;
    assert_eq!(
        tags,
        json!([{ "tag": "home", "count": 1 }, { "tag": "repairs", "count": 1 }])
    );
}

#[actix_rt::test]
async fn bad_edits_get_a_clear_error_and_change_nothing() {
    let app = spawn_app().await;
    let id = app.capture("keep me as I am").await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let path = format!("/api/notes/{id}");
    let before = note(&app, &id).await;

    let cases = [
        (json!({}), 400, "nothing to change"),
        (json!({ "color": "red" }), 400, "unknown field"),
        (json!({ "body": 7 }), 400, "invalid type"),
        (json!({ "tags": "a,b" }), 400, "invalid type"),
        (json!({ "body": "  " }), 400, "empty"),
        (json!({ "title": "" }), 400, "title is empty"),
        (json!({ "title": "two\nlines" }), 400, "one line"),
        (json!({ "title": "t".repeat(201) }), 400, "longer than 200"),
        (json!({ "tags": ["ok", ""] }), 400, "cannot be empty"),
        (json!({ "tags": ["a,b"] }), 400, "comma"),
        (json!({ "tags": ["x".repeat(33)] }), 400, "longer than 32"),
        (json!({ "body": "x".repeat(70_000) }), 413, "limit"),
    ];
    for (body, status, says) in cases {
        let (got, error) = app.patch_json(&path, &body).await;
        assert_eq!(got, status, "{body}: {error}");
        let message = error["error"].as_str().unwrap_or_default();
        assert!(message.contains(says), "{body}: {message}");
    }
    assert_eq!(note(&app, &id).await, before);

    let (status, error) = app
        .patch_json("/api/notes/no-such-note", &json!({ "title": "T" }))
        .await;
    assert_eq!(status, 404, "{error}");

    app.post_json(&format!("{path}/trash"), &json!({})).await;
    let trashed = note(&app, &id).await;
    let (status, error) = app.patch_json(&path, &json!({ "body": "changed" })).await;
    assert_eq!(status, 409);
    assert!(
        error["error"]
            .as_str()
            .unwrap()
            .contains("restore it first"),
        "{error}"
    );
    assert_eq!(note(&app, &id).await, trashed);
}

/// Captures a note and gives it `tags` by hand.
async fn tagged(app: &TestApp, text: &str, tags: &[&str]) -> String {
    let id = app.capture(text).await["id"].as_str().unwrap().to_string();
    let (status, _) = app
        .patch_json(&format!("/api/notes/{id}"), &json!({ "tags": tags }))
        .await;
    assert_eq!(status, 200);
    id
}

#[actix_rt::test]
async fn a_tag_is_renamed_on_every_note_or_merged_into_one_that_exists() {
    let app = spawn_app().await;
    let a = tagged(&app, "a", &["cooking"]).await;
    let b = tagged(&app, "b", &["cooking tips", "cooking"]).await;
    tagged(&app, "c", &["ci/cd"]).await;

    let (status, renamed) = app
        .post_json(
            "/api/tags/rename",
            &json!({ "tag": "cooking tips", "to": "Cooking" }),
        )
        .await;
    assert_eq!(status, 200, "{renamed}");
    assert_eq!(
        renamed,
        json!({ "tag": "cooking", "notes": 1, "merged": true })
    );
    assert_eq!(note(&app, &b).await["tags"], json!(["cooking"]));

    let (status, renamed) = app
        .post_json(
            "/api/tags/rename",
            &json!({ "tag": "cooking", "to": "food" }),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(
        renamed,
        json!({ "tag": "food", "notes": 2, "merged": false })
    );
    assert_eq!(note(&app, &a).await["tags"], json!(["food"]));

    // A tag with a slash, and tags a URL path cannot carry (dot segments): all in the body.
    for (tag, to) in [("ci/cd", "devops"), (".", "dot"), ("..", "dots")] {
        tagged(&app, tag, &[tag]).await;
        let (status, renamed) = app
            .post_json("/api/tags/rename", &json!({ "tag": tag, "to": to }))
            .await;
        assert_eq!(status, 200, "{tag}: {renamed}");
        assert_eq!(renamed["tag"], to, "{tag}");
    }
    let (_, tags) = app.get("/api/tags").await;
    assert_eq!(
        tags,
        json!([
            { "tag": "devops", "count": 2 },
            { "tag": "food", "count": 2 },
            { "tag": "dot", "count": 1 },
            { "tag": "dots", "count": 1 }
        ])
    );
}

#[actix_rt::test]
async fn bad_renames_get_a_clear_error_and_change_nothing() {
    let app = spawn_app().await;
    tagged(&app, "a", &["cooking"]).await;
    let (_, before) = app.get("/api/tags").await;
    let cases = [
        (
            json!({ "tag": "nothing", "to": "x" }),
            404,
            "no note has the tag",
        ),
        (
            json!({ "tag": "cooking", "to": "  " }),
            400,
            "cannot be empty",
        ),
        (
            json!({ "tag": "cooking", "to": "Cooking" }),
            400,
            "called \"cooking\" already",
        ),
        (json!({ "tag": "cooking", "to": "a,b" }), 400, "comma"),
        (
            json!({ "tag": "cooking", "name": "x" }),
            400,
            "unknown field",
        ),
        (json!({ "to": "x" }), 400, "missing field `tag`"),
        (json!({ "tag": "cooking", "to": 3 }), 400, "invalid type"),
    ];
    for (body, status, says) in cases {
        let (got, error) = app.post_json("/api/tags/rename", &body).await;
        assert_eq!(got, status, "{body}: {error}");
        assert!(error["error"].as_str().unwrap().contains(says), "{error}");
    }
    let (_, after) = app.get("/api/tags").await;
    assert_eq!(after, before);
}

#[actix_rt::test]
async fn a_note_opened_alone_has_its_body_rendered_safely_and_its_ai_progress() {
    let app = spawn_app_with(&[("INKLING_OLLAMA__URL", "http://127.0.0.1:9")]).await;
    let body = "Errands\n- [ ] stamps\n- [x] milk\n\n<script>alert(1)</script>\n\n[map](https://example.org)";
    let id = app.capture(body).await["id"].as_str().unwrap().to_string();

    let (status, detail) = app.get(&format!("/api/notes/{id}")).await;
    assert_eq!(status, 200, "{detail}");
    let html = detail["body_html"].as_str().unwrap();
    assert_eq!(html.matches(r#"type="checkbox""#).count(), 2, "{html}");
    assert!(!html.contains("<script"), "{html}");
    assert!(html.contains(r#"rel="noopener noreferrer""#), "{html}");
    assert_eq!(detail["ai"]["attempts"], 0);
    assert_eq!(detail["ai"]["max_attempts"], 3);
    assert!(detail["ai"]["next_run_at"].is_string(), "{detail}");
}

#[actix_rt::test]
async fn ticking_a_checklist_item_edits_only_its_marker_and_a_bad_index_changes_nothing() {
    let app = spawn_app().await;
    let id = app.capture("Errands\n- [ ] stamps\n- [x] milk").await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let path = format!("/api/notes/{id}/tasks/0");

    let (status, ticked) = app.post_json(&path, &json!({ "done": true })).await;
    assert_eq!(status, 200, "{ticked}");
    assert_eq!(ticked["body"], "Errands\n- [x] stamps\n- [x] milk");
    assert_eq!(note(&app, &id).await, ticked);

    // Already as asked: the note as it is, nothing written.
    let (status, same) = app.post_json(&path, &json!({ "done": true })).await;
    assert_eq!((status, &same), (200, &ticked));

    let before = note(&app, &id).await;
    for (path, body, status, says) in [
        (
            format!("/api/notes/{id}/tasks/2"),
            json!({ "done": true }),
            400,
            "no checklist item 2",
        ),
        (
            format!("/api/notes/{id}/tasks/x"),
            json!({ "done": true }),
            404,
            "",
        ),
        (
            format!("/api/notes/{id}/tasks/1"),
            json!({ "done": "yes" }),
            400,
            "invalid type",
        ),
        (
            "/api/notes/nope/tasks/0".to_string(),
            json!({ "done": true }),
            404,
            "nope",
        ),
    ] {
        let (got, error) = app.post_json(&path, &body).await;
        assert_eq!(got, status, "{path}: {error}");
        let message = error["error"].as_str().unwrap_or_default();
        assert!(message.contains(says), "{path}: {message}");
    }
    assert_eq!(note(&app, &id).await, before);
}
