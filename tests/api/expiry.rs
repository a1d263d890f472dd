//! Whether notes expire (docs/DESIGN.md, "Expiry"): off until the person says yes, asked
//! once after a month of use, decided by the settings when they say so; an imported
//! note ages from its import.

use serde_json::json;

use crate::helpers::{spawn_app, spawn_app_with, TestApp};

async fn expiry_status(app: &TestApp) -> serde_json::Value {
    let (code, status) = app.get("/api/status").await;
    assert_eq!(code, 200);
    json!({ "expiry": status["expiry"], "expired": status["counts"]["expired"] })
}

#[actix_rt::test]
async fn notes_do_not_expire_until_the_person_says_yes_and_the_question_waits_a_month() {
    let app = spawn_app().await;
    let note = app.capture("renew the passport").await;
    let id = note["id"].as_str().unwrap().to_string();
    assert_eq!(
        note["expires_at"],
        serde_json::Value::Null,
        "off: no expiry"
    );
    assert_eq!(
        expiry_status(&app).await,
        json!({ "expiry": { "choice": "ask", "ask": false }, "expired": 0 })
    );

    // Nearly a month: not yet asked.
    app.clock.advance(chrono::Duration::days(29));
    assert_eq!(expiry_status(&app).await["expiry"]["ask"], false);
    // A month of use: asked, and still nothing is expired.
    app.clock.advance(chrono::Duration::days(2));
    assert_eq!(
        expiry_status(&app).await,
        json!({ "expiry": { "choice": "ask", "ask": true }, "expired": 0 })
    );
    assert_eq!(app.note(&id).await["expired"], false);

    let (code, answer) = app
        .post_json("/api/inbox/expiry", &json!({ "on": true }))
        .await;
    assert_eq!(code, 200, "{answer}");
    assert_eq!(answer, json!({ "choice": "on", "ask": false }));
    assert_eq!(
        expiry_status(&app).await,
        json!({ "expiry": { "choice": "on", "ask": false }, "expired": 1 })
    );
    let shown = app.note(&id).await;
    assert_eq!(shown["expired"], true);
    assert_eq!(shown["expires_at"], "2026-03-31T12:00:00.000Z");
    let (_, listed) = app.get("/api/notes?expired=true").await;
    assert_eq!(listed.as_array().unwrap().len(), 1);
}

#[actix_rt::test]
async fn no_means_nothing_expires_and_the_question_does_not_come_back() {
    let app = spawn_app().await;
    app.capture("an old thought").await;
    app.clock.advance(chrono::Duration::days(40));
    let (code, answer) = app
        .post_json("/api/inbox/expiry", &json!({ "on": false }))
        .await;
    assert_eq!(code, 200, "{answer}");
    app.clock.advance(chrono::Duration::days(400));
    assert_eq!(
        expiry_status(&app).await,
        json!({ "expiry": { "choice": "off", "ask": false }, "expired": 0 })
    );
    let (_, trashed) = app.post_json("/api/inbox/trash-expired", &json!({})).await;
    assert_eq!(trashed["count"], 0, "nothing is expired, nothing goes");
}

#[actix_rt::test]
async fn the_settings_can_decide_and_then_an_answer_is_refused_and_nothing_asked() {
    let app = spawn_app_with(&[("INKLING_EXPIRY__CHOICE", "off")]).await;
    app.capture("an old thought").await;
    app.clock.advance(chrono::Duration::days(40));
    assert_eq!(
        expiry_status(&app).await,
        json!({ "expiry": { "choice": "off", "ask": false }, "expired": 0 })
    );
    let (code, error) = app
        .post_json("/api/inbox/expiry", &json!({ "on": true }))
        .await;
    assert_eq!(code, 409);
    assert!(
        error["error"].as_str().unwrap().contains("expiry.choice"),
        "says where it is set: {error}"
    );
    assert_eq!(expiry_status(&app).await["expiry"]["choice"], "off");
}

#[actix_rt::test]
async fn a_bad_answer_is_refused_and_changes_nothing() {
    let app = spawn_app().await;
    for bad in [
        json!({}),
        json!({ "on": "yes" }),
        json!({ "on": true, "days": 3 }),
    ] {
        let (code, error) = app.post_json("/api/inbox/expiry", &bad).await;
        assert_eq!(code, 400, "{bad}: {error}");
    }
    assert_eq!(expiry_status(&app).await["expiry"]["choice"], "ask");
}

#[actix_rt::test]
async fn an_imported_note_ages_from_its_import_and_is_no_month_of_use() {
    let app = spawn_app().await;
    let two_years_ago = (crate::helpers::start_time() - chrono::Duration::days(730)).to_rfc3339();
    let file =
        json!({ "name": "old.md", "text": "Ideas for the shed", "modified_at": two_years_ago });
    let (code, answer) = app
        .post_json("/api/notes/import", &json!({ "markdown": [file] }))
        .await;
    assert_eq!(code, 200, "{answer}");
    // Notes written two years ago, but only imported today: no month of use yet.
    assert_eq!(expiry_status(&app).await["expiry"]["ask"], false);

    let (code, _) = app
        .post_json("/api/inbox/expiry", &json!({ "on": true }))
        .await;
    assert_eq!(code, 200);
    let (_, notes) = app.get("/api/notes").await;
    let note = &notes[0];
    assert_eq!(
        note["expired"], false,
        "not expired on the day of its import"
    );
    assert_eq!(note["imported_at"], "2026-03-01T12:00:00.000Z");
    assert_eq!(note["expires_at"], "2026-03-31T12:00:00.000Z");
    assert_eq!(expiry_status(&app).await["expired"], 0);

    app.clock.advance(chrono::Duration::days(31));
    assert_eq!(expiry_status(&app).await["expired"], 1);
}
