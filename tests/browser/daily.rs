//! The page as a daily notes app (issue #28), on a desktop and a phone screen: a
//! pasted web address is a link, in the card's preview and in the open note; "Delete
//! forever" only where it can work, and a refusal said in the service's words; a saved
//! edit shown at once; expiry asked about calmly, once a week.

use serde_json::json;

use crate::fake_ollama::Reply;
use crate::harness::{start, start_with_notes, Scheme, Screen};

#[actix_rt::test]
async fn a_bare_web_address_is_a_link_in_the_card_and_in_the_open_note_on_both_screens() {
    let browser = start(&[]).await;
    let body = "Recipe for Sunday https://example.org/recipes/soup?serves=4. Try it with \
                less salt (or see https://example.org/tips). ssh://host stays text";
    let note = browser
        .api("POST", "/api/notes", Some(json!({ "body": body })))
        .await;
    let id = note["id"].as_str().expect("captured").to_string();
    let links_in = |css: &str| {
        format!(
            "return [...document.querySelectorAll(\"{css} a[href]\")]\
             .map(a => [a.getAttribute('href'), a.textContent, a.target, a.rel]);"
        )
    };
    let expected = json!([
        [
            "https://example.org/recipes/soup?serves=4",
            "https://example.org/recipes/soup?serves=4",
            "_blank",
            "noopener noreferrer"
        ],
        [
            "https://example.org/tips",
            "https://example.org/tips",
            "_blank",
            "noopener noreferrer"
        ],
    ]);
    for screen in [Screen::Desktop, Screen::Phone] {
        browser.emulate(screen, Scheme::Light).await;
        browser.open_inbox().await;
        let card = format!("#notes li[data-id='{id}'] .preview");
        browser
            .wait_until(
                "the card's preview",
                &format!("document.querySelector(\"{card}\")"),
            )
            .await;
        assert_eq!(browser.eval(&links_in(&card)).await, expected, "{screen:?}");
        let text = browser.text(&card).await;
        assert!(
            text.contains("soup?serves=4. Try it"),
            "the text kept: {text}"
        );

        browser
            .click(&format!("#notes li[data-id='{id}'] a.open"))
            .await;
        browser.wait_visible("note-view").await;
        browser
            .wait_until(
                "the note rendered",
                "document.querySelector('#note-detail .rendered a')",
            )
            .await;
        assert_eq!(
            browser.eval(&links_in("#note-detail .rendered")).await,
            expected,
            "{screen:?}"
        );
        browser.assert_accessible(&format!("{screen:?}")).await;
    }
    browser.close().await;
}

#[actix_rt::test]
async fn delete_forever_is_offered_in_the_trash_only_and_a_refusal_is_said_in_the_services_words() {
    let browser = start(&[]).await;
    let note = browser
        .api(
            "POST",
            "/api/notes",
            Some(json!({ "body": "Plan the garden" })),
        )
        .await;
    let id = note["id"].as_str().expect("captured").to_string();
    for screen in [Screen::Desktop, Screen::Phone] {
        browser.emulate(screen, Scheme::Light).await;
        browser.open_inbox().await;
        browser
            .wait_until(
                "listed",
                &format!("document.querySelector(\"#notes li[data-id='{id}'] a.open\")"),
            )
            .await;
        browser
            .click(&format!("#notes li[data-id='{id}'] a.open"))
            .await;
        browser.wait_visible("note-view").await;
        browser
            .wait_until(
                "the note's actions",
                "document.querySelector('#note-detail .detail-actions .trash')",
            )
            .await;
        assert_eq!(
            browser
                .eval("return document.querySelector('#note-detail .detail-actions .delete') === null;")
                .await,
            json!(true),
            "{screen:?}: a note out of the trash has no 'Delete forever'"
        );
    }

    // A request the service refuses (4xx) is said with its reason, not blamed on the
    // connection.
    let said = browser
        .eval(&format!(
            "const {{ guarded }} = await import({});\
             const {{ ApiFailure }} = await import({});\
             await guarded(async () => {{ throw new ApiFailure(409, \
               'note x is not in the trash; move it to the trash first'); }})();\
             return document.querySelector('#capture-error .text').textContent;",
            crate::harness::module("dom.js"),
            crate::harness::module("api.js")
        ))
        .await;
    assert_eq!(
        said,
        json!("Nothing was changed: note x is not in the trash; move it to the trash first")
    );
    browser.close().await;
}

#[actix_rt::test]
async fn a_saved_edit_shows_at_once_in_the_open_note_even_when_the_live_event_comes_first() {
    let browser = start(&[]).await;
    let mut ids = Vec::new();
    for _ in 0..2 {
        let note = browser
            .api("POST", "/api/notes", Some(json!({ "body": "Old words" })))
            .await;
        let id = note["id"].as_str().expect("captured").to_string();
        browser
            .wait_for_api("done", &format!("/api/notes/{id}"), |note| {
                note["ai_status"] == "done"
            })
            .await;
        ids.push(id);
    }
    // From now on the model never answers: no later AI event would refresh the view.
    browser.fake.set_default(Reply::Hang);
    for (screen, id) in [Screen::Desktop, Screen::Phone].into_iter().zip(&ids) {
        browser.emulate(screen, Scheme::Light).await;
        browser.open_inbox().await;
        browser
            .wait_until(
                "listed",
                &format!("document.querySelector(\"#notes li[data-id='{id}'] a.open\")"),
            )
            .await;
        browser
            .click(&format!("#notes li[data-id='{id}'] a.open"))
            .await;
        browser
            .wait_until(
                "the note shown",
                "document.querySelector('#note-detail .rendered')",
            )
            .await;
        // The save's own answer comes 400 ms late, so the live event of the change is
        // there first (the order in which the old words could stay on screen).
        browser
            .eval(
                "const fetched = window.fetch;\
                 window.patchesAnswered = 0;\
                 window.requestsOpen = 0;\
                 window.fetch = async (path, init) => {\
                   window.requestsOpen += 1;\
                   try {\
                     const answer = await fetched(path, init);\
                     await answer.clone().text();\
                     if (init && init.method === 'PATCH') {\
                       await new Promise((done) => setTimeout(done, 400));\
                       window.patchesAnswered += 1;\
                     }\
                     return answer;\
                   } finally {\
                     window.requestsOpen -= 1;\
                   }\
                 };",
            )
            .await;
        browser.click("#note-detail .detail-actions .edit").await;
        browser
            .type_into("#note-detail textarea[name=body]", "New words")
            .await;
        browser.click("#note-detail button[type=submit]").await;
        browser
            .wait_until(
                "the new words shown",
                "document.querySelector('#note-detail .rendered') && \
                 document.querySelector('#note-detail h2').textContent.includes('New words')",
            )
            .await;
        // Every load the save and its event set off has come back (the barrier: no
        // request of the page open): still the new words.
        browser
            .wait_until(
                "every load answered",
                "window.patchesAnswered === 1 && window.requestsOpen === 0",
            )
            .await;
        // A one-line note is its own heading (the body's line not said again under it).
        let shown = browser
            .eval(
                "return document.querySelector('#note-detail h2').textContent + ' ' + \
                          document.querySelector('#note-detail .rendered').textContent;",
            )
            .await;
        let shown = shown.as_str().unwrap_or_default();
        assert!(
            shown.contains("New words") && !shown.contains("Old words"),
            "{screen:?}: {shown}"
        );
    }
    browser.close().await;
}

#[actix_rt::test]
async fn notes_past_expiry_are_asked_about_calmly_once_a_week_and_keep_all_keeps_them() {
    // Expiry after 0 days: every note stored is past it.
    let browser = start_with_notes(
        &[
            ("INKLING_EXPIRY__CHOICE", "on"),
            ("INKLING_EXPIRY__DAYS", "0"),
        ],
        2,
    )
    .await;
    for screen in [Screen::Desktop, Screen::Phone] {
        browser.emulate(screen, Scheme::Light).await;
        browser.open_inbox().await;
        browser.wait_visible("expiry-banner").await;
        let asked = browser.text("#expiry-banner .text").await;
        assert!(
            asked.contains("2 notes over 0 days old, not kept"),
            "{screen:?}: calm words: {asked}"
        );
        assert!(
            browser.is_shown("keep-expired").await,
            "{screen:?}: Keep all"
        );
    }

    browser.click("#keep-expired").await;
    browser
        .wait_for_api("none past expiry", "/api/status", |status| {
            status["counts"]["expired"] == 0
        })
        .await;
    browser
        .wait_until(
            "the question put away",
            "document.getElementById('expiry-banner').hidden",
        )
        .await;
    let kept = browser.api("GET", "/api/notes", None).await;
    assert!(
        kept.as_array()
            .unwrap()
            .iter()
            .all(|note| note["kept_at"].is_string() && note["expired"] == false),
        "{kept}"
    );

    // A new note past expiry the same day is not asked about again (nor after a
    // reload): the answer stands for a week.
    browser
        .api("POST", "/api/notes", Some(json!({ "body": "one more" })))
        .await;
    browser
        .wait_for_api("one past expiry", "/api/status", |status| {
            status["counts"]["expired"] == 1
        })
        .await;
    browser.open_inbox().await;
    browser
        .wait_until(
            "the new note listed",
            "document.querySelectorAll('#notes .note').length === 3",
        )
        .await;
    assert_eq!(
        browser
            .eval("return document.getElementById('expiry-banner').hidden;")
            .await,
        json!(true)
    );
    // The rule itself: asked again once a week has passed.
    let due = browser
        .eval(&format!(
            "const {{ reviewDue, ASK_AGAIN_AFTER_MS }} = await import({});\
             const now = Date.now();\
             return [reviewDue(1, null, now), reviewDue(0, null, now),\
                     reviewDue(1, now - ASK_AGAIN_AFTER_MS + 1, now),\
                     reviewDue(1, now - ASK_AGAIN_AFTER_MS, now)];",
            crate::harness::module("expiry.js")
        ))
        .await;
    assert_eq!(due, json!([true, false, false, true]));
    browser.close().await;
}

#[actix_rt::test]
async fn after_a_month_of_use_the_page_asks_once_whether_notes_expire_and_yes_takes_at_once() {
    // Notes written 31 days ago, expiry not answered: nothing is expired yet, and the
    // page asks.
    let browser = crate::harness::start_with_old_notes(&[], 2, chrono::Duration::days(31)).await;
    for screen in [Screen::Desktop, Screen::Phone] {
        browser.emulate(screen, Scheme::Light).await;
        browser.open_inbox().await;
        browser.wait_visible("expiry-question").await;
        let asked = browser.text("#expiry-question .text").await;
        assert!(
            asked.contains("never kept") && asked.contains("30 days"),
            "{screen:?}: the question in plain words: {asked}"
        );
        assert!(
            !browser.is_shown("expiry-banner").await,
            "{screen:?}: nothing is expired before the answer"
        );
        browser
            .assert_accessible(&format!("{screen:?} the expiry question"))
            .await;
    }

    browser.click("#expiry-yes").await;
    browser
        .wait_until(
            "the question answered",
            "document.getElementById('expiry-question').hidden",
        )
        .await;
    // On at once: the two old notes are expired, and the review banner offers them.
    browser.wait_visible("expiry-banner").await;
    let status = browser.api("GET", "/api/status", None).await;
    assert_eq!(status["expiry"], json!({ "choice": "on", "ask": false }));
    assert_eq!(status["counts"]["expired"], 2);
    // Answered for good: a reload does not ask again.
    browser.open_inbox().await;
    browser.wait_visible("expiry-banner").await;
    assert!(!browser.is_shown("expiry-question").await);
    browser.close().await;
}
