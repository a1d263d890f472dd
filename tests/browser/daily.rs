//! The page as a daily notes app (issue #28): a pasted web address is a link, in the
//! card's preview and in the open note, on a desktop and a phone screen; "Delete
//! forever" only where it can work, and a refusal said in the service's words.

use serde_json::json;

use crate::harness::{start, Scheme, Screen};

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
        assert!(
            browser.accessibility_violations().await.is_empty(),
            "{screen:?}"
        );
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
        "a note out of the trash has no 'Delete forever'"
    );

    // A request the service refuses (4xx) is said with its reason, not blamed on the
    // connection.
    let said = browser
        .eval(
            "const { guarded } = await import('/assets/dom.js');\
             const { ApiFailure } = await import('/assets/api.js');\
             await guarded(async () => { throw new ApiFailure(409, \
               'note x is not in the trash; move it to the trash first'); })();\
             return document.querySelector('#capture-error .text').textContent;",
        )
        .await;
    assert_eq!(
        said,
        json!("Nothing was changed: note x is not in the trash; move it to the trash first")
    );
    browser.close().await;
}
