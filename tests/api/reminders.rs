//! Reminders over HTTP and from the command line (docs/API.md, "Reminders"): set,
//! snoozed, done and cleared with `PATCH /api/notes/{id}`; listed, earliest first, by
//! `GET /api/reminders`; `inkling remind` and `inkling today`. A change refused
//! changes nothing.

use chrono::{DateTime, Duration, Utc};
use serde_json::{json, Value};

use crate::helpers::{spawn_app, ServiceProcess, TestApp};

async fn captured(app: &TestApp, body: &str) -> String {
    app.capture(body).await["id"].as_str().unwrap().to_string()
}

async fn remind(app: &TestApp, id: &str, body: Value) -> Value {
    let (status, note) = app.patch_json(&format!("/api/notes/{id}"), &body).await;
    assert_eq!(status, 200, "{body}: {note}");
    note
}

fn ids(answer: &Value) -> Vec<String> {
    answer["reminders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|note| note["id"].as_str().unwrap().to_string())
        .collect()
}

#[actix_rt::test]
async fn reminders_are_set_snoozed_done_and_cleared_and_listed_earliest_first() {
    // The test clock starts at 2026-03-01T12:00:00Z.
    let app = spawn_app().await;
    let plumber = captured(&app, "call the plumber").await;
    let dentist = captured(&app, "dentist").await;
    let later = captured(&app, "renew the insurance").await;
    let none = captured(&app, "no time in this one").await;

    let note = remind(
        &app,
        &plumber,
        json!({ "remind_at": "2026-03-01T13:00:00+09:00" }),
    )
    .await;
    assert_eq!(note["remind_at"], "2026-03-01T04:00:00.000Z", "kept in UTC");
    assert_eq!(note["remind_state"], "open");
    remind(
        &app,
        &dentist,
        json!({ "remind_at": "2026-03-01T15:00:00Z" }),
    )
    .await;
    remind(&app, &later, json!({ "remind_at": "2026-03-09T09:00:00Z" })).await;
    assert!(app.note(&none).await.get("remind_at").is_none());

    let (status, today) = app.get("/api/reminders?until=2026-03-01T23:59:59Z").await;
    assert_eq!(status, 200, "{today}");
    assert_eq!(
        ids(&today),
        [plumber.clone(), dentist.clone()],
        "overdue first"
    );
    assert_eq!(today["now"], "2026-03-01T12:00:00.000Z");
    let (_, all) = app.get("/api/reminders?until=2026-12-31T00:00:00Z").await;
    assert_eq!(ids(&all), [plumber.clone(), dentist.clone(), later.clone()]);
    // Without `until`: the end of today in the service's time zone, at least 12:00 on.
    let (status, default) = app.get("/api/reminders").await;
    assert_eq!(status, 200);
    assert!(ids(&default).contains(&plumber), "{default}");
    assert!(!ids(&default).contains(&later), "{default}");

    // Snoozed alone: an hour from now.
    let snoozed = remind(&app, &plumber, json!({ "remind_state": "snoozed" })).await;
    assert_eq!(snoozed["remind_state"], "snoozed");
    assert_eq!(snoozed["remind_at"], "2026-03-01T13:00:00.000Z");
    // Done: kept, not listed.
    let done = remind(&app, &dentist, json!({ "remind_state": "done" })).await;
    assert_eq!(done["remind_state"], "done");
    assert_eq!(done["remind_at"], "2026-03-01T15:00:00.000Z");
    let (_, today) = app.get("/api/reminders?until=2026-03-01T23:59:59Z").await;
    assert_eq!(ids(&today), [plumber.as_str()]);
    // Open again: listed again.
    remind(&app, &dentist, json!({ "remind_state": "open" })).await;
    let (_, today) = app.get("/api/reminders?until=2026-03-01T23:59:59Z").await;
    assert_eq!(ids(&today), [plumber.clone(), dentist.clone()]);

    // Cleared: gone from the note and the list.
    let cleared = remind(&app, &plumber, json!({ "remind_at": null })).await;
    assert!(cleared.get("remind_at").is_none() && cleared.get("remind_state").is_none());
    // A note in the trash is not listed.
    let (status, _) = app
        .post_json(&format!("/api/notes/{dentist}/trash"), &json!({}))
        .await;
    assert_eq!(status, 200);
    let (_, all) = app.get("/api/reminders?until=2026-12-31T00:00:00Z").await;
    assert_eq!(ids(&all), [later.as_str()]);

    // Each change is in the change log, as `reminded`.
    let (_, changes) = app.get("/api/changes?since=0&limit=500").await;
    let reminded = changes["changes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["kind"] == "reminded")
        .count();
    assert_eq!(reminded, 7, "{changes}");
}

#[actix_rt::test]
async fn bad_reminder_changes_get_a_clear_error_and_change_nothing() {
    let app = spawn_app().await;
    let id = captured(&app, "keep me as I am").await;
    let path = format!("/api/notes/{id}");
    let before = app.note(&id).await;
    let cases = [
        (json!({ "remind_at": "tomorrow" }), 400, "not a time"),
        (json!({ "remind_at": 7 }), 400, "invalid type"),
        (
            json!({ "remind_state": "later" }),
            400,
            "open, done or snoozed",
        ),
        (
            json!({ "remind_at": null, "remind_state": "open" }),
            400,
            "no remind_state",
        ),
        (
            json!({ "remind_at": "2026-03-02T09:00:00Z", "remind_state": "done" }),
            400,
            "takes no new time",
        ),
        (
            json!({ "remind_at": "2026-03-02T09:00:00Z", "title": "x" }),
            400,
            "of their own",
        ),
        (json!({ "remind_state": "done" }), 409, "has no reminder"),
        (json!({ "remind_state": "snoozed" }), 409, "has no reminder"),
    ];
    for (body, status, says) in cases {
        let (got, error) = app.patch_json(&path, &body).await;
        assert_eq!(got, status, "{body}: {error}");
        let message = error["error"].as_str().unwrap_or_default();
        assert!(message.contains(says), "{body}: {message}");
    }
    assert_eq!(app.note(&id).await, before);
    let (status, error) = app.get("/api/reminders?until=soon").await;
    assert_eq!(status, 400);
    assert!(
        error["error"].as_str().unwrap().contains("RFC 3339"),
        "{error}"
    );
    let (status, error) = app.get("/api/reminders?from=x").await;
    assert_eq!(status, 400, "{error}");
    let (status, _) = app
        .patch_json(
            "/api/notes/no-such-note",
            &json!({ "remind_at": "2026-03-02T09:00:00Z" }),
        )
        .await;
    assert_eq!(status, 404);
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn inkling_remind_and_today_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let port = crate::helpers::free_port();
    let service = ServiceProcess::start(dir.path(), port);
    let captured = service.cli(&["--json", "capture", "call the plumber"]);
    assert!(captured.status.success(), "{}", text(&captured.stderr));
    let note: Value = serde_json::from_slice(&captured.stdout).unwrap();
    let id = note["id"].as_str().unwrap();

    // Words it cannot read: exit 1, the words named, nothing changed.
    for words in [
        &["someday"][..],
        &["tomorrow", "tomorrow"],
        &["2020-01-01", "9:00"],
    ] {
        let mut args = vec!["remind", id];
        args.extend_from_slice(words);
        let refused = service.cli(&args);
        assert_eq!(refused.status.code(), Some(1), "{words:?}");
        let error = text(&refused.stderr);
        assert!(
            error.contains(&words.join(" ")) && (error.contains("try") || error.contains("passed")),
            "{error}"
        );
    }
    let shown: Value =
        serde_json::from_slice(&service.cli(&["--json", "show", id]).stdout).unwrap();
    assert!(shown.get("remind_at").is_none(), "{shown}");

    // Several words need no quotes; read against this machine's clock.
    let before = Utc::now();
    let set = service.cli(&["--json", "remind", id, "in", "2", "hours"]);
    assert!(set.status.success(), "{}", text(&set.stderr));
    let note: Value = serde_json::from_slice(&set.stdout).unwrap();
    let at: DateTime<Utc> = note["remind_at"].as_str().unwrap().parse().unwrap();
    assert!(
        at >= before + Duration::hours(2) && at <= Utc::now() + Duration::hours(2),
        "{at}"
    );
    assert!(text(&service.cli(&["remind", id, "2시간", "후"]).stdout).starts_with("reminder on "));

    // `today` lists it when it is today's; a reminder on a fresh note for now + 1
    // minute is (the other may fall after midnight).
    let soon = service.cli(&["--json", "capture", "soon"]);
    let soon: Value = serde_json::from_slice(&soon.stdout).unwrap();
    let soon_id = soon["id"].as_str().unwrap();
    assert!(service
        .cli(&["remind", soon_id, "in", "1", "minute"])
        .status
        .success());
    let today: Value = serde_json::from_slice(&service.cli(&["--json", "today"]).stdout).unwrap();
    let listed: Vec<&str> = today["reminders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["id"].as_str().unwrap())
        .collect();
    // In the last minute of a day the minute's reminder falls into tomorrow.
    let local = |at: DateTime<Utc>| at.with_timezone(&chrono::Local).date_naive();
    let end_of_day_close = local(Utc::now() + Duration::minutes(2)) != local(Utc::now());
    assert!(listed.contains(&soon_id) || end_of_day_close, "{today}");
    let plain = text(&service.cli(&["today"]).stdout);
    // The note's id as lists print it: the shortest start that names it.
    let shown = plain
        .split_whitespace()
        .any(|word| word.len() >= 8 && soon_id.starts_with(word));
    assert!(shown || end_of_day_close, "{plain}");

    // A note written yesterday and never opened (imported with yesterday's date) is
    // listed after the reminders.
    let vault = tempfile::tempdir().unwrap();
    let yesterday = (Utc::now() - Duration::days(1)).to_rfc3339();
    std::fs::write(
        vault.path().join("boiler.md"),
        format!("---\ndate: {yesterday}\n---\nAsk the landlord about the boiler.\n"),
    )
    .unwrap();
    assert!(service
        .cli(&["import", vault.path().to_str().unwrap()])
        .status
        .success());
    let plain = text(&service.cli(&["today"]).stdout);
    assert!(
        plain.contains("from yesterday, not opened yet (1):") && plain.contains("boiler"),
        "{plain}"
    );

    let done = service.cli(&["remind", soon_id, "--done"]);
    assert!(
        text(&done.stdout).contains("done"),
        "{}",
        text(&done.stderr)
    );
    let cleared = service.cli(&["remind", id, "--clear"]);
    assert!(cleared.status.success());
    assert_eq!(text(&cleared.stdout).trim(), format!("no reminder on {id}"));
    let shown: Value =
        serde_json::from_slice(&service.cli(&["--json", "show", id]).stdout).unwrap();
    assert!(shown.get("remind_at").is_none(), "{shown}");
    // No time and no option is a usage error.
    assert_eq!(service.cli(&["remind", id]).status.code(), Some(2));
}

fn unopened(answer: &Value) -> Vec<String> {
    answer["unopened"]
        .as_array()
        .unwrap()
        .iter()
        .map(|note| note["id"].as_str().unwrap().to_string())
        .collect()
}

#[actix_rt::test]
async fn today_lists_yesterday_s_notes_until_they_are_opened() {
    // Captured on 1 March at 12:00 UTC; "today" is 2 March (the test zone is UTC, and
    // any zone from UTC-11 to UTC+11 puts both on the same days).
    let app = spawn_app().await;
    let first = captured(&app, "the plumber's number").await;
    let second = captured(&app, "a book Mina liked").await;
    let trashed = captured(&app, "never mind").await;
    app.post_json(&format!("/api/notes/{trashed}/trash"), &json!({}))
        .await;
    app.clock.advance(Duration::days(1));
    let fresh = captured(&app, "written today").await;

    let (status, today) = app.get("/api/reminders").await;
    assert_eq!(status, 200, "{today}");
    assert_eq!(unopened(&today), [first.clone(), second.clone()], "{today}");

    let (_, before) = app.get("/api/changes?since=0&limit=500").await;
    let note = app.note(&first).await;
    let (status, opened) = app
        .post_json(&format!("/api/notes/{first}/opened"), &json!({}))
        .await;
    assert_eq!(status, 200, "{opened}");
    assert_eq!(opened["opened_at"], "2026-03-02T12:00:00.000Z");
    assert_eq!(
        opened["updated_at"], note["updated_at"],
        "a view is no edit"
    );
    let (_, after) = app.get("/api/changes?since=0&limit=500").await;
    assert_eq!(before["changes"], after["changes"], "nor in the change log");

    let (_, today) = app.get("/api/reminders").await;
    assert_eq!(unopened(&today), std::slice::from_ref(&second));
    assert!(!unopened(&today).contains(&fresh));
    let (status, _) = app
        .post_json("/api/notes/no-such-note/opened", &json!({}))
        .await;
    assert_eq!(status, 404);
}

#[actix_rt::test]
async fn a_suggestion_is_accepted_or_dismissed_only_where_there_is_one() {
    let app = spawn_app().await;
    let id = captured(&app, "no time said here").await;
    let before = app.note(&id).await;
    let (status, refused) = app
        .post_json(&format!("/api/notes/{id}/reminder/accept"), &json!({}))
        .await;
    assert_eq!(status, 409, "{refused}");
    assert!(
        refused["error"]
            .as_str()
            .unwrap()
            .contains("no suggested reminder"),
        "{refused}"
    );
    assert_eq!(app.note(&id).await, before, "nothing changed");

    // Dismissed with none offered: no suggestion is ever offered on it.
    let (status, dismissed) = app
        .post_json(&format!("/api/notes/{id}/reminder/dismiss"), &json!({}))
        .await;
    assert_eq!(status, 200, "{dismissed}");
    assert_eq!(dismissed["remind_suggestion_dismissed"], true);
    assert!(dismissed.get("remind_at").is_none());
    let (status, _) = app
        .post_json("/api/notes/no-such-note/reminder/dismiss", &json!({}))
        .await;
    assert_eq!(status, 404);
}

/// An answer is bounded: past the most one lists, the earliest and `more`.
#[actix_rt::test]
async fn a_day_with_more_reminders_than_one_answer_lists_gives_the_earliest_and_says_so() {
    let app = spawn_app().await;
    let most = inkling::api::reminders::MAX_REMINDERS as usize;
    let mut set = Vec::new();
    for minute in 0..=most {
        let id = captured(&app, &format!("reminder {minute}")).await;
        let at = DateTime::parse_from_rfc3339("2026-03-01T13:00:00Z").unwrap()
            + Duration::minutes(minute as i64);
        remind(&app, &id, json!({ "remind_at": at.to_rfc3339() })).await;
        set.push(id);
    }
    let (status, today) = app.get("/api/reminders?until=2026-03-02T00:00:00Z").await;
    assert_eq!(status, 200);
    assert_eq!(ids(&today), set[..most], "the earliest, in order");
    assert_eq!(today["more"], true);

    remind(&app, &set[0], json!({ "remind_state": "done" })).await;
    let (_, today) = app.get("/api/reminders?until=2026-03-02T00:00:00Z").await;
    assert_eq!(ids(&today), set[1..], "a done one makes room for the last");
    assert_eq!(today["more"], false);
}
