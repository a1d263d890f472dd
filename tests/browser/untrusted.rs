//! What a note, a tag or an address brings cannot mislead the page (issue #29 point
//! 11): bidi controls in a title reorder nothing around it, a tag that looks like a
//! placeholder is shown as it is, every tag can be renamed, and the token in an
//! address opens nothing.

use serde_json::{json, Value};

use crate::harness::{start, Browser};

/// A note captured through the API, then `fields` set on it as the person would.
async fn note_with(browser: &Browser, body: &str, fields: Value) -> String {
    let note = browser
        .api("POST", "/api/notes", Some(json!({ "body": body })))
        .await;
    let id = note["id"].as_str().unwrap().to_owned();
    let response = awc::Client::new()
        .patch(format!("{}/api/notes/{id}", browser.app_url))
        .bearer_auth(&browser.token)
        .send_json(&fields)
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    id
}

/// A title with a right-to-left override (U+202E) is shown in an element of its own
/// direction, isolated (`dir="auto"`), and set between isolate marks inside a
/// sentence, so it cannot turn the words after it around ("…txt.exe" read backwards).
#[actix_rt::test]
async fn bidi_controls_in_a_title_reorder_nothing_around_it() {
    let browser = start(&[]).await;
    let title = "invoice\u{202E}fdp.exe";
    note_with(&browser, "the body", json!({ "title": title })).await;
    browser.open_inbox().await;
    browser
        .wait_until(
            "the card",
            "document.querySelector('#notes li a.open') !== null",
        )
        .await;

    let card = browser
        .eval(
            "const open = document.querySelector('#notes li a.open'); \
             return [open.textContent, open.getAttribute('dir'), getComputedStyle(open).unicodeBidi, \
                     document.querySelector('#notes li button.trash').getAttribute('aria-label')];",
        )
        .await;
    assert_eq!(card[0], title);
    assert_eq!(card[1], "auto", "the card's title has its own direction");
    assert_eq!(card[2], "isolate", "and is isolated from what is around it");
    assert_eq!(
        card[3],
        format!("Move “\u{2068}{title}\u{2069}” to the trash"),
        "inside a sentence, between isolate marks"
    );

    browser.click("#notes li a.open").await;
    browser.wait_visible("note-view").await;
    // The view shows before its note is fetched and drawn.
    browser
        .wait_until(
            "the note's heading",
            "document.querySelector('#note-view h2')",
        )
        .await;
    let detail = browser
        .eval(
            "const heading = document.querySelector('#note-view h2'); \
             return [heading.getAttribute('dir'), getComputedStyle(heading).unicodeBidi, heading.textContent, \
                     document.querySelector('#note-view .ai-section').textContent.includes('fdp')];",
        )
        .await;
    assert_eq!(detail[0], "auto", "{detail}");
    assert_eq!(detail[1], "isolate", "{detail}");
    // The title is said once, in the heading (the AI section says where it came from).
    assert_eq!(detail[2], json!(title), "{detail}");
    assert_eq!(detail[3], json!(false), "{detail}");
    browser.close().await;
}

/// Renaming a tag named `{to}`: the message said "Renamed #x to #x", the tag's name
/// read as the message's own placeholder.
#[actix_rt::test]
async fn a_tag_named_like_a_placeholder_is_shown_as_it_is_in_the_rename_message() {
    let browser = start(&[]).await;
    note_with(&browser, "a", json!({ "tags": ["{to}"] })).await;
    browser.open_inbox().await;
    browser.click("#views button[data-view=tags]").await;
    let row = "#tags li[data-tag='{to}']";
    browser
        .wait_until(
            "the tag",
            &format!("document.querySelector(\"{row}\") !== null"),
        )
        .await;
    browser.click(&format!("{row} button.rename")).await;
    browser.type_into(&format!("{row} input"), "x").await;
    browser.click(&format!("{row} button[type=submit]")).await;
    browser
        .wait_until(
            "renamed",
            "document.getElementById('tags-result').textContent !== ''",
        )
        .await;
    let said = browser
        .eval("return document.getElementById('tags-result').textContent;")
        .await;
    assert_eq!(said, "Renamed #{to} to #x on 1 note.");
    browser.close().await;
}

/// Tags `.` and `..` could not be renamed from the page: in the route's path they are
/// dot segments, which the browser folds away even percent-encoded. The tag goes in
/// the request's body now.
#[actix_rt::test]
async fn tags_named_dot_and_dot_dot_are_renamed_from_the_page() {
    let browser = start(&[]).await;
    note_with(&browser, "a", json!({ "tags": ["."] })).await;
    note_with(&browser, "b", json!({ "tags": [".."] })).await;
    browser.open_inbox().await;
    browser.click("#views button[data-view=tags]").await;
    for (tag, to) in [(".", "dot"), ("..", "dots")] {
        let row = format!("#tags li[data-tag='{tag}']");
        browser
            .wait_until(tag, &format!("document.querySelector(\"{row}\") !== null"))
            .await;
        browser.click(&format!("{row} button.rename")).await;
        browser.type_into(&format!("{row} input"), to).await;
        browser.click(&format!("{row} button[type=submit]")).await;
        browser
            .wait_until(
                to,
                &format!(
                    "document.getElementById('tags-result').textContent === 'Renamed #{tag} to #{to} on 1 note.'"
                ),
            )
            .await;
    }
    let tags = browser.api("GET", "/api/tags", None).await;
    assert_eq!(
        tags,
        json!([{ "tag": "dot", "count": 1 }, { "tag": "dots", "count": 1 }])
    );
    browser.close().await;
}

/// The page traded `?token=` for a session: an address with the token (seen by `ps`,
/// kept in the history) opened every note. Now only a one-time code opens it; the
/// token is dropped from the address and not used.
#[actix_rt::test]
async fn the_token_in_the_address_opens_nothing_and_is_dropped_from_it() {
    let browser = start(&[]).await;
    browser
        .client
        .goto(&format!("{}/?token={}", browser.app_url, browser.token))
        .await
        .unwrap();
    browser.wait_visible("no-session").await;
    assert!(!browser.is_shown("app").await);
    let url = browser.client.current_url().await.unwrap();
    assert_eq!(url.query(), None, "{url}");
    assert_eq!(
        browser.eval(crate::harness::HELD_SESSION).await,
        Value::Null
    );
    browser.close().await;
}

/// Before (issue #43 point 7): an answer's bidirectional override was not isolated in
/// the page, so "Pay U+202E exe.fdp [1]" could turn the citation and the words after it
/// around. Each stretch of the model's text between citations is now its own isolate
/// (<bdi>), and the AI's summary has its own direction, isolated, as the title has.
#[actix_rt::test]
async fn the_models_text_is_isolated_in_the_page() {
    let browser = start(&[]).await;
    let id = browser
        .api(
            "POST",
            "/api/notes",
            Some(json!({ "body": "Pay the invoice from the printer shop" })),
        )
        .await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    browser
        .wait_for_api("the AI's summary", &format!("/api/notes/{id}"), |note| {
            note["summary"].as_str().is_some_and(|s| !s.is_empty())
        })
        .await;
    browser
        .fake
        .answers()
        .set_pieces(&["Pay \u{202E}exe.fdp [1] now."]);
    browser.open_inbox().await;
    browser
        .wait_until(
            "listed",
            "document.querySelectorAll('#notes .note').length === 1",
        )
        .await;
    browser.type_into("#search", "invoice printer").await;
    // The search's hits drawn (its words marked) before anything is clicked in the
    // list: drawn later, they would replace the card the click below aims at.
    browser
        .wait_until(
            "the search's hits",
            "document.querySelector('#notes .note mark') !== null",
        )
        .await;
    browser.click("#ask-button").await;
    browser
        .wait_until(
            "the answer",
            "document.getElementById('ask-panel').dataset.state === 'answered'",
        )
        .await;
    let answer = browser
        .eval(
            "const answer = document.getElementById('ask-answer'); \
             return [[...answer.children].map(c => [c.tagName, c.textContent, getComputedStyle(c).unicodeBidi]), \
                     getComputedStyle(answer).unicodeBidi];",
        )
        .await;
    assert_eq!(
        answer,
        json!([
            [
                ["BDI", "Pay \u{202E}exe.fdp ", "isolate"],
                ["A", "[1]", "isolate"],
                ["BDI", " now.", "isolate"]
            ],
            "isolate"
        ])
    );

    browser.click("#notes li a.open").await;
    browser.wait_visible("note-view").await;
    browser
        .wait_until(
            "the summary",
            "document.querySelector('#note-view .summary')",
        )
        .await;
    let summary = browser
        .eval(
            "const lead = document.querySelector('#note-view .summary'); \
             return [lead.getAttribute('dir'), getComputedStyle(lead).unicodeBidi];",
        )
        .await;
    assert_eq!(summary, json!(["auto", "isolate"]));
    browser.close().await;
}
