//! Reminders on the page (issue #41), on a desktop and a phone screen, each scanned by
//! axe-core: the note view offers the time a note says (the fake model quotes the
//! note's words, as a model answering the schema's `when` does) and one click makes it
//! the reminder; the Today view, from the navigation, lists the overdue, those due
//! later today and yesterday's notes never opened, with Done and Snooze 1 h on each
//! reminder; opening a note from yesterday takes it off the list; the address a
//! notification's Open gives for many notes lands on Today.

use chrono::{DateTime, Duration, Utc};
use serde_json::{json, Value};

use crate::harness::{start, Browser, Scheme, Screen};

async fn captured(browser: &Browser, body: &str) -> String {
    let note = browser
        .api("POST", "/api/notes", Some(json!({ "body": body })))
        .await;
    note["id"].as_str().expect("an id").to_string()
}

async fn remind_at(browser: &Browser, id: &str, at: DateTime<Utc>) {
    let note = browser
        .api(
            "PATCH",
            &format!("/api/notes/{id}"),
            Some(json!({ "remind_at": at.to_rfc3339() })),
        )
        .await;
    assert_eq!(note["remind_state"], "open", "{note}");
}

/// Shows a view as the page's own navigation does (its address, then Back's event).
async fn go_to(browser: &Browser, address: &str) {
    browser
        .eval(&format!(
            "history.pushState(null, '', '{address}'); dispatchEvent(new PopStateEvent('popstate'));"
        ))
        .await;
}

fn item(id: &str) -> String {
    format!("#today-content li[data-id='{id}']")
}

#[actix_rt::test]
async fn the_ai_s_suggestion_is_one_click_and_today_lists_what_is_due_and_unopened() {
    let browser = start(&[]).await;
    browser.fake.set_when("tomorrow at 9");
    let plumber = captured(&browser, "Call the plumber tomorrow at 9").await;
    let suggested = browser
        .wait_for_api(
            "the AI's suggestion",
            &format!("/api/notes/{plumber}"),
            |note| note["remind_suggested_at"].is_string(),
        )
        .await;
    browser.fake.set_when("");

    let now = Utc::now();
    let passport = captured(&browser, "Renew the passport").await;
    remind_at(&browser, &passport, now - Duration::hours(2)).await;
    // Due later today: a minute before the day's end, unless that has passed.
    let today = browser.api("GET", "/api/reminders", None).await;
    let end: DateTime<Utc> = today["until"].as_str().unwrap().parse().unwrap();
    let plants = captured(&browser, "Water the plants").await;
    let later_today = end - Duration::minutes(1) > now + Duration::minutes(1);
    if later_today {
        remind_at(&browser, &plants, end - Duration::minutes(1)).await;
    }
    let imported = browser
        .api(
            "POST",
            "/api/notes/import",
            Some(json!({ "notes": [{
                "body": "A book Mina liked: The Remains of the Day",
                "created_at": (now - Duration::days(1)).to_rfc3339(),
            }] })),
        )
        .await;
    assert_eq!(imported["imported"], 1, "{imported}");
    let today = browser.api("GET", "/api/reminders", None).await;
    let book = today["unopened"][0]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("yesterday's note listed: {today}"))
        .to_string();

    for screen in [Screen::Desktop, Screen::Phone] {
        browser.emulate(screen, Scheme::Light).await;
        browser.open_inbox().await;

        // The note view offers the time the note says.
        go_to(&browser, &format!("/?note={plumber}")).await;
        browser
            .wait_until(
                "the suggestion shown",
                "document.querySelector('#note-detail .reminder .suggestion-accept')",
            )
            .await;
        let offered = browser.text("#note-detail .reminder p").await;
        assert!(offered.contains("mentions a time"), "{offered}");
        browser
            .assert_accessible(&format!("the suggestion, {screen:?}"))
            .await;

        // Today, from the navigation.
        browser.click("#views button[data-view='today']").await;
        browser
            .wait_until(
                "Today listed",
                &format!("document.querySelector(\"{}\")", item(&book)),
            )
            .await;
        let overdue = browser.text("#today-overdue").await;
        assert!(overdue.starts_with("Overdue"), "{overdue}");
        assert!(browser
            .text(&item(&passport))
            .await
            .contains("Renew the passport"));
        if later_today {
            assert!(browser
                .text("#today-due")
                .await
                .starts_with("Due later today"));
            assert!(browser
                .text(&item(&plants))
                .await
                .contains("Water the plants"));
        }
        let unopened = browser.text("#today-unopened").await;
        assert!(
            unopened.starts_with("From yesterday, not opened yet (1)"),
            "{unopened}"
        );
        assert!(
            !browser
                .text("#today-content")
                .await
                .contains("Call the plumber"),
            "a suggestion is not a reminder"
        );
        browser
            .assert_accessible(&format!("Today, {screen:?}"))
            .await;
    }

    // Accepted with one click: the suggested time is the reminder.
    go_to(&browser, &format!("/?note={plumber}")).await;
    browser
        .wait_until(
            "the suggestion shown again",
            "document.querySelector('#note-detail .reminder .suggestion-accept')",
        )
        .await;
    browser
        .click("#note-detail .reminder .suggestion-accept")
        .await;
    browser
        .wait_until(
            "the reminder shown",
            "(document.querySelector('#note-detail .reminder p') || {}).textContent?.startsWith('Reminds you')",
        )
        .await;
    let note = browser
        .api("GET", &format!("/api/notes/{plumber}"), None)
        .await;
    assert_eq!(note["remind_at"], suggested["remind_suggested_at"]);
    assert_eq!(note["remind_state"], "open");
    assert!(note.get("remind_suggested_at").is_none(), "{note}");

    // Done and Snooze 1 h on Today.
    browser.click("#views button[data-view='today']").await;
    browser
        .wait_until(
            "Today listed",
            &format!("document.querySelector(\"{}\")", item(&passport)),
        )
        .await;
    browser
        .click(&format!("{} .reminder-done", item(&passport)))
        .await;
    browser
        .wait_until(
            "the done reminder gone",
            &format!("!document.querySelector(\"{}\")", item(&passport)),
        )
        .await;
    let done: Value = browser
        .api("GET", &format!("/api/notes/{passport}"), None)
        .await;
    assert_eq!(done["remind_state"], "done");
    if later_today {
        browser
            .click(&format!("{} .reminder-snooze", item(&plants)))
            .await;
        let snoozed = browser
            .wait_for_api("snoozed", &format!("/api/notes/{plants}"), |note| {
                note["remind_state"] == "snoozed"
            })
            .await;
        let until: DateTime<Utc> = snoozed["remind_at"].as_str().unwrap().parse().unwrap();
        assert!(until > Utc::now() + Duration::minutes(55), "{snoozed}");
    }

    // Opening yesterday's note takes it off the list.
    browser.click(&format!("{} .today-open", item(&book))).await;
    browser.wait_visible("note-view").await;
    browser
        .wait_for_api("opened", &format!("/api/notes/{book}"), |note| {
            note["opened_at"].is_string()
        })
        .await;
    browser.click("#views button[data-view='today']").await;
    browser
        .wait_until(
            "yesterday's note off Today",
            "document.querySelector('#today-content') && !document.querySelector('#today-unopened') \
             && document.querySelector('#today-content').childElementCount > 0",
        )
        .await;

    // The address a reminders summary's or the daily review's Open gives lands on Today.
    let code = browser.api("POST", "/api/open-code", Some(json!({}))).await;
    let code = code["code"].as_str().expect("a one-time code");
    browser
        .client
        .goto(&format!("{}/?code={code}&view=today", browser.app_url))
        .await
        .unwrap();
    browser.wait_visible("today-view").await;
    browser.close().await;
}
