//! Capture, get, list and status over HTTP; bad input is refused and changes nothing.

use serde_json::json;

use crate::helpers::{spawn_app, spawn_app_with};

#[actix_rt::test]
async fn capture_returns_201_with_a_pending_note_that_is_stored() {
    let app = spawn_app().await;

    let (status, note) = app
        .post_json("/api/notes", &json!({ "body": "call the plumber" }))
        .await;

    assert_eq!(status, 201);
    assert_eq!(note["body"], "call the plumber");
    assert_eq!(note["ai_status"], "pending");
    assert_eq!(note["created_at"], "2026-03-01T12:00:00.000Z");
    let id = note["id"].as_str().unwrap();
    assert_eq!(app.note(id).await, note);
    assert_eq!(app.note_count_in_db(), 1);
}

#[actix_rt::test]
async fn status_counts_pending_failed_and_expired_notes() {
    let app = spawn_app_with(&[("INKLING_EXPIRY__CHOICE", "on")]).await;
    app.capture("one").await;
    app.capture("two").await;
    app.clock.advance(chrono::Duration::days(31));
    app.capture("three").await;

    let (status, body) = app.get("/api/status").await;

    assert_eq!(status, 200);
    assert_eq!(
        body["counts"],
        json!({ "pending": 3, "failed": 0, "expired": 2 })
    );
}

#[actix_rt::test]
async fn list_returns_notes_newest_first_and_filters_by_status() {
    let app = spawn_app().await;
    let first = app.capture("first").await;
    app.clock.advance(chrono::Duration::seconds(1));
    let second = app.capture("second").await;

    let (status, notes) = app.get("/api/notes").await;
    assert_eq!(status, 200);
    let ids: Vec<&str> = notes
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            second["id"].as_str().unwrap(),
            first["id"].as_str().unwrap()
        ]
    );

    let (_, done) = app.get("/api/notes?status=done").await;
    assert_eq!(done, json!([]));
    let (status, body) = app.get("/api/notes?status=bogus").await;
    assert_eq!(status, 400);
    assert!(body["error"].as_str().unwrap().contains("bogus"));
}

#[actix_rt::test]
async fn an_unknown_note_id_is_404_with_a_json_error() {
    let app = spawn_app().await;
    let (status, body) = app.get("/api/notes/does-not-exist").await;
    assert_eq!(status, 404);
    assert!(body["error"].as_str().unwrap().contains("does-not-exist"));
}

#[actix_rt::test]
async fn bad_capture_input_gets_a_clear_4xx_and_stores_nothing() {
    let app = spawn_app().await;
    let cases: Vec<(&str, &str, Vec<u8>, u16)> = vec![
        (
            "malformed JSON",
            "application/json",
            b"{\"body\": ".to_vec(),
            400,
        ),
        (
            "wrong type",
            "application/json",
            br#"{"body": 42}"#.to_vec(),
            400,
        ),
        ("missing field", "application/json", b"{}".to_vec(), 400),
        (
            "unknown field",
            "application/json",
            br#"{"body": "x", "tags": []}"#.to_vec(),
            400,
        ),
        (
            "empty body",
            "application/json",
            br#"{"body": "   "}"#.to_vec(),
            400,
        ),
        (
            "invalid UTF-8",
            "application/json",
            b"{\"body\": \"\xff\xfe\"}".to_vec(),
            400,
        ),
        ("not JSON", "text/plain", b"hello".to_vec(), 415),
        (
            "over the limit",
            "application/json",
            serde_json::to_vec(&json!({ "body": "x".repeat(70_000) })).unwrap(),
            413,
        ),
    ];
    for (what, content_type, body, expected) in cases {
        let (status, reply) = app.post_raw("/api/notes", content_type, body).await;
        assert_eq!(status, expected, "{what}: {reply}");
        assert!(
            reply["error"].as_str().is_some_and(|e| !e.is_empty()),
            "{what}: no JSON error in {reply}"
        );
    }
    assert_eq!(app.note_count_in_db(), 0);
}

#[actix_rt::test]
async fn a_wrong_method_is_405_and_an_unknown_route_404() {
    let app = spawn_app().await;
    let (status, _) = app.post_json("/api/status", &json!({})).await;
    assert_eq!(status, 405);
    let (status, _) = app.get("/api/nothing-here").await;
    assert_eq!(status, 404);
}

#[actix_rt::test]
async fn a_graceful_stop_keeps_every_captured_note() {
    let app = spawn_app().await;
    for i in 0..10 {
        app.capture(&format!("note {i}")).await;
    }

    app.handle.stop(true).await;

    assert_eq!(app.note_count_in_db(), 10);
}

/// `GET /api/notes?q=`: ranked hits with a snippet; bad searches are 400 and change nothing.
#[actix_rt::test]
async fn search_finds_notes_by_any_part_of_their_words_with_a_marked_snippet() {
    let app = spawn_app().await;
    let soup = app.capture("tomato soup for Sunday").await;
    app.capture("call the plumber").await;
    let korean = app.capture("오늘은 사과를 샀다").await;

    let (status, hits) = app.get("/api/notes?q=tomat").await;
    assert_eq!(status, 200, "{hits}");
    let hits = hits.as_array().unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0]["id"], soup["id"]);
    assert_eq!(hits[0]["body"], "tomato soup for Sunday");
    assert_eq!(
        hits[0]["snippet"],
        serde_json::json!([{ "text": "tomat", "matched": true }, { "text": "o soup for Sunday" }])
    );
    let (_, hits) = app.get("/api/notes?q=%EC%82%AC%EA%B3%BC").await; // 사과
    assert_eq!(hits[0]["id"], korean["id"]);
    let (_, hits) = app.get("/api/notes?q=plumber&status=done").await;
    assert_eq!(hits, serde_json::json!([]));

    for (query, says) in [
        ("q=", "empty"),
        ("q=%20%20", "empty"),
        (&*format!("q={}", "x".repeat(501)), "limit is 500"),
        (
            &*format!("q=soup&before={}", soup["id"].as_str().unwrap()),
            "before",
        ),
        ("q=soup&limit=0", "limit"),
        ("q=tomato%00soup", "control character (U+0000)"),
        ("q=%00", "control character"),
    ] {
        let (status, body) = app.get(&format!("/api/notes?{query}")).await;
        assert_eq!(status, 400, "{query}: {body}");
        assert!(
            body["error"].as_str().unwrap().contains(says),
            "{query}: {body}"
        );
    }
}

/// `POST /api/notes/{id}/enrich`: 202 with the note pending; a note in the trash 409,
/// an unknown id 404, neither changing anything.
#[actix_rt::test]
async fn one_notes_ai_is_asked_for_again_and_a_trashed_or_unknown_note_is_refused() {
    let app = spawn_app().await;
    let note = app.capture("ask the AI again").await;
    let id = note["id"].as_str().unwrap();

    let (status, again) = app
        .post_json(&format!("/api/notes/{id}/enrich"), &json!({}))
        .await;
    assert_eq!(status, 202, "{again}");
    assert_eq!(again["ai_status"], "pending");

    app.post_json(&format!("/api/notes/{id}/trash"), &json!({}))
        .await;
    let (status, body) = app
        .post_json(&format!("/api/notes/{id}/enrich"), &json!({}))
        .await;
    assert_eq!(status, 409, "{body}");
    assert!(body["error"].as_str().unwrap().contains("restore it first"));
    let (status, _) = app.post_json("/api/notes/nope/enrich", &json!({})).await;
    assert_eq!(status, 404);
    let (_, shown) = app.get(&format!("/api/notes/{id}")).await;
    assert!(shown["deleted_at"].is_string(), "still in the trash");
}

#[actix_rt::test]
async fn every_note_the_api_returns_says_whether_it_is_expired_and_when_it_expires() {
    // docs/DESIGN.md: a note older than `expiry.days` (30 in the tests) that was never
    // kept is expired; the page reads these facts instead of computing them.
    let app = spawn_app_with(&[("INKLING_EXPIRY__CHOICE", "on")]).await;
    let note = app.capture("renew the passport").await;
    let id = note["id"].as_str().unwrap().to_string();
    assert_eq!(note["expired"], false);
    assert_eq!(note["expires_at"], "2026-03-31T12:00:00.000Z");

    app.clock.advance(chrono::Duration::days(30));
    assert_eq!(app.note(&id).await["expired"], false, "not past it yet");
    app.clock.advance(chrono::Duration::seconds(1));
    let shown = app.note(&id).await;
    assert_eq!(shown["expired"], true);
    assert_eq!(shown["expires_at"], "2026-03-31T12:00:00.000Z");
    let (_, list) = app.get("/api/notes").await;
    assert_eq!(list[0]["expired"], true);
    let (_, hits) = app.get("/api/notes?q=passport").await;
    assert_eq!(hits[0]["expired"], true);
    assert_eq!(hits[0]["expires_at"], "2026-03-31T12:00:00.000Z");

    let (status, kept) = app
        .post_json(&format!("/api/notes/{id}/keep"), &json!({}))
        .await;
    assert_eq!(status, 200);
    assert_eq!(kept["expired"], false);
    assert_eq!(kept["expires_at"], serde_json::Value::Null);

    let other = app.capture("another").await;
    let other = other["id"].as_str().unwrap();
    let (status, trashed) = app
        .post_json(&format!("/api/notes/{other}/trash"), &json!({}))
        .await;
    assert_eq!(status, 200);
    assert_eq!(trashed["expired"], false);
    assert_eq!(trashed["expires_at"], serde_json::Value::Null);
}

#[actix_rt::test]
async fn status_carries_the_limits_the_service_holds_requests_to() {
    let app = spawn_app_with(&[("INKLING_HTTP__MAX_BODY_BYTES", "1000")]).await;

    let (status, body) = app.get("/api/status").await;

    assert_eq!(status, 200);
    assert_eq!(
        body["limits"],
        json!({ "body_bytes": 1000, "request_bytes": 3024, "tag_chars": 32, "tags_per_note": 20 })
    );
}
