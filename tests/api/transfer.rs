//! Export and import (docs/API.md, "Export and import"): every note out as one JSON
//! document and back in, the same notes; bad imports refused whole.

use serde_json::{json, Value};

use crate::helpers::{spawn_app, TestApp};

/// The export as text, and as the document it is.
async fn export(app: &TestApp) -> (u16, String) {
    let mut response = awc::Client::new()
        .get(format!("{}/api/notes/export?format=json", app.address))
        .bearer_auth(&app.token)
        .send()
        .await
        .unwrap();
    let body = response.body().limit(64 << 20).await.unwrap();
    (
        response.status().as_u16(),
        String::from_utf8(body.to_vec()).unwrap(),
    )
}

/// Every note the app has, active and trashed, by id.
async fn all_notes(app: &TestApp) -> Vec<Value> {
    let mut notes = Vec::new();
    for trash in [false, true] {
        let (_, page) = app
            .get(&format!("/api/notes?limit=500&trash={trash}"))
            .await;
        notes.extend(page.as_array().unwrap().iter().cloned());
    }
    notes.sort_by_key(|n| n["id"].as_str().unwrap().to_string());
    notes
}

/// Imported notes as they were exported: each is stamped with its import's time
/// (`imported_at`: its expiry counts from then), which the export did not have.
fn imported_as_they_were(mut notes: Vec<Value>) -> Vec<Value> {
    for note in &mut notes {
        let stamp = note.as_object_mut().unwrap().remove("imported_at");
        assert!(stamp.is_some_and(|at| at.is_string()), "stamped: {note}");
    }
    notes
}

#[actix_rt::test]
async fn an_export_imported_into_an_empty_service_gives_the_same_notes() {
    let app = spawn_app().await;
    let plain = app.capture("a plain note").await;
    let edited = app.capture("a note with \"quotes\"\nand two lines").await;
    let id = edited["id"].as_str().unwrap();
    app.patch_json(
        &format!("/api/notes/{id}"),
        &json!({ "title": "Mine", "tags": ["home"] }),
    )
    .await;
    let trashed = app.capture("in the trash").await;
    app.post_json(
        &format!("/api/notes/{}/trash", trashed["id"].as_str().unwrap()),
        &json!({}),
    )
    .await;
    let kept = app.capture("kept").await;
    app.post_json(
        &format!("/api/notes/{}/keep", kept["id"].as_str().unwrap()),
        &json!({}),
    )
    .await;
    let _ = plain;

    let (status, document) = export(&app).await;
    assert_eq!(status, 200);
    let parsed: Value = serde_json::from_str(&document).expect("one JSON document");
    assert_eq!(parsed["inkling_export"], 1);
    assert_eq!(
        parsed["notes"].as_array().unwrap().len(),
        4,
        "the trash included"
    );

    let other = spawn_app().await;
    let (status, answer) = other
        .post_json("/api/notes/import", &json!({ "notes": parsed["notes"] }))
        .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer, json!({ "imported": 4, "skipped": 0 }));
    assert_eq!(
        imported_as_they_were(all_notes(&other).await),
        all_notes(&app).await
    );

    // Again: every id exists, nothing changes.
    let (_, answer) = other
        .post_json("/api/notes/import", &json!({ "notes": parsed["notes"] }))
        .await;
    assert_eq!(answer, json!({ "imported": 0, "skipped": 4 }));
    assert_eq!(other.note_count_in_db(), 4);
    let store = inkling::storage::Store::open(&other.db_path(), 30).unwrap();
    assert_eq!(store.invariant_violations().unwrap(), Vec::<String>::new());
}

#[actix_rt::test]
async fn an_export_of_more_than_a_page_streams_every_note_once() {
    let app = spawn_app().await;
    let notes: Vec<Value> = (0..1_203)
        .map(|i| json!({ "body": format!("note {i}"), "created_at": format!("2026-01-01T00:{:02}:{:02}Z", i / 60 % 60, i % 60) }))
        .collect();
    for chunk in notes.chunks(400) {
        let (status, answer) = app
            .post_json("/api/notes/import", &json!({ "notes": chunk }))
            .await;
        assert_eq!(status, 200, "{answer}");
    }
    let (_, document) = export(&app).await;
    let parsed: Value = serde_json::from_str(&document).unwrap();
    let mut ids: Vec<&str> = parsed["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 1_203);
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 1_203, "no note twice");
    assert!(document.lines().count() >= 1_203, "one note a line");
}

#[actix_rt::test]
async fn a_bad_import_is_refused_whole_and_writes_nothing() {
    let app = spawn_app().await;
    let good = json!({ "body": "fine" });
    let cases = [
        (json!({ "notes": [] }), "no notes"),
        (
            json!({ "notes": [good, { "body": "" }] }),
            "note 2: the note body is empty",
        ),
        (
            json!({ "notes": [good, { "body": "x", "id": "../etc" }] }),
            "is not an id",
        ),
        (
            json!({ "notes": [{ "body": "x", "created_at": "monday" }] }),
            "RFC 3339",
        ),
        (
            json!({ "notes": [{ "body": "x", "colour": "red" }] }),
            "unknown field",
        ),
        (
            json!({ "notes": [{ "body": "x", "tags": ["a,b"] }] }),
            "comma",
        ),
        (
            json!({ "notes": [{ "body": "x", "ai_status": "weird" }] }),
            "unknown variant",
        ),
        (json!({ "note": [] }), "unknown field"),
        // Years 0 and 9999 came in, and sorted before and after every note for good.
        (
            json!({ "notes": [good, { "body": "x", "id": "old-one", "created_at": "0000-01-01T00:00:00Z" }] }),
            "note 2 (old-one): created_at \"0000-01-01T00:00:00Z\" is outside the years 1970 to 2200",
        ),
        (
            json!({ "notes": [{ "body": "x", "updated_at": "9999-12-31T23:59:59Z" }] }),
            "note 1: updated_at \"9999-12-31T23:59:59Z\" is outside the years 1970 to 2200",
        ),
        (
            json!({ "markdown": [{ "name": "far.md", "text": "---\ncreated: 9999-01-01T00:00:00Z\n---\nfar" }] }),
            "far.md: created_at \"9999-01-01T00:00:00Z\" is outside",
        ),
    ];
    for (body, says) in cases {
        let (status, error) = app.post_json("/api/notes/import", &body).await;
        assert_eq!(status, 400, "{body}: {error}");
        assert!(
            error["error"].as_str().unwrap().contains(says),
            "{body}: {error}"
        );
    }
    assert_eq!(app.note_count_in_db(), 0);
    let (status, error) = app.get("/api/notes/export?format=markdown").await;
    assert_eq!(status, 400);
    assert!(
        error["error"]
            .as_str()
            .unwrap()
            .contains("inkling export-notes"),
        "{error}"
    );
}

#[actix_rt::test]
async fn imported_notes_without_an_answer_go_to_the_ai_and_are_counted() {
    let app = spawn_app().await;
    let (status, _) = app
        .post_json(
            "/api/notes/import",
            &json!({ "notes": [
                { "body": "new, no AI yet" },
                { "body": "done before", "ai_status": "done", "title": "Done" },
                { "body": "failed before", "ai_status": "failed" },
            ] }),
        )
        .await;
    assert_eq!(status, 200);
    let (_, status) = app.get("/api/status").await;
    assert_eq!(status["counts"]["pending"], 1);
    assert_eq!(status["counts"]["failed"], 1);
    let (_, failed) = app.get("/api/notes?status=failed").await;
    assert_eq!(
        failed[0]["ai_error"],
        "other: failed before it was imported"
    );
    let store = inkling::storage::Store::open(&app.db_path(), 30).unwrap();
    assert_eq!(store.invariant_violations().unwrap(), Vec::<String>::new());
}
