//! The inbox page's notes in Chromium: capture, the draft, the keyboard, paging, the tag
//! filter, trash and restore, and Redo AI.

use serde_json::json;

use super::failed_notes;
use crate::harness::{start, start_with_notes};

#[actix_rt::test]
async fn a_note_captured_on_the_page_with_ctrl_enter_lands_in_the_database() {
    let browser = start(&[]).await;
    browser.open_inbox().await;

    let textarea = browser
        .client
        .find(fantoccini::Locator::Id("capture-body"))
        .await
        .unwrap();
    textarea.send_keys("typed on the page").await.unwrap();
    browser.save_with_ctrl_enter().await;

    browser
        .wait_until(
            "the box is cleared",
            "document.getElementById('capture-body').value === ''",
        )
        .await;
    let notes = browser.api("GET", "/api/notes", None).await;
    assert_eq!(notes[0]["body"], "typed on the page");
    browser
        .wait_until(
            "the new note is listed",
            "[...document.querySelectorAll('#notes a.open, #notes .preview')].some(e => e.textContent === 'typed on the page')",
        )
        .await;
    browser.close().await;
}

#[actix_rt::test]
async fn the_capture_box_has_the_focus_and_its_draft_survives_a_reload() {
    let browser = start(&[]).await;
    browser.open_inbox().await;
    browser
        .wait_until(
            "typing goes to the capture box",
            "document.activeElement && document.activeElement.id === 'capture-body'",
        )
        .await;
    browser
        .type_into("#capture-body", "a half-typed thought")
        .await;

    browser.client.refresh().await.unwrap();
    browser
        .wait_until(
            "the draft is back, focused",
            "document.getElementById('capture-body').value === 'a half-typed thought' \
             && document.activeElement.id === 'capture-body'",
        )
        .await;
    // Saved: the draft goes with it.
    browser.save_with_ctrl_enter().await;
    browser
        .wait_until(
            "saved",
            "document.getElementById('capture-body').value === ''",
        )
        .await;
    browser.client.refresh().await.unwrap();
    browser
        .wait_until(
            "no draft after the save",
            "document.getElementById('app').hidden === false && document.getElementById('capture-body').value === ''",
        )
        .await;
    let notes = browser.api("GET", "/api/notes", None).await;
    assert_eq!(notes[0]["body"], "a half-typed thought");
    browser.close().await;
}

#[actix_rt::test]
async fn every_control_is_reachable_with_the_keyboard() {
    let browser = start(&[]).await;
    failed_notes(&browser, 1).await;
    browser.open_inbox().await;
    browser.wait_visible("failed-banner").await;

    // Everything clickable is a <button>, a link or the text box: focusable and operable by keys.
    let not_focusable = browser
        .eval("return [...document.querySelectorAll('[onclick], a:not([href]), [role=button]')].length;")
        .await;
    assert_eq!(not_focusable, json!(0));
    let focus = browser
        .eval("const b = document.getElementById('retry'); b.focus(); return document.activeElement === b;")
        .await;
    assert_eq!(focus, json!(true));
    browser.close().await;
}

#[actix_rt::test]
async fn ten_thousand_notes_are_shown_a_page_at_a_time() {
    let browser = start_with_notes(&[], 10_000).await;
    browser.open_inbox().await;
    browser
        .wait_until(
            "the first page",
            "document.querySelectorAll('#notes li').length === 50",
        )
        .await;
    assert_eq!(
        browser.text("#notes li h3").await,
        "stored note 9999",
        "newest first"
    );

    // Scrolling to the end appends the next page; the cards already there stay the
    // same elements (nothing is rendered again).
    browser
        .eval("window.firstCard = document.querySelector('#notes li'); window.scrollTo(0, document.body.scrollHeight); return true;")
        .await;
    browser
        .wait_until(
            "the second page",
            "document.querySelectorAll('#notes li').length >= 100",
        )
        .await;
    assert_eq!(
        browser
            .eval("return window.firstCard === document.querySelector('#notes li') && window.firstCard.isConnected;")
            .await,
        json!(true)
    );
    // The button does the same from the keyboard.
    let before = browser
        .eval("return document.querySelectorAll('#notes li').length;")
        .await;
    browser
        .eval("const b = document.getElementById('load-more'); b.focus(); b.click(); return true;")
        .await;
    browser
        .wait_until(
            "one more page",
            &format!(
                "document.querySelectorAll('#notes li').length >= {} + 50",
                before
            ),
        )
        .await;
    browser.close().await;
}

#[actix_rt::test]
async fn tags_filter_the_list_and_the_chip_clears_it() {
    let browser = start_with_notes(&[], 3).await;
    browser
        .api(
            "POST",
            "/api/notes",
            Some(json!({ "body": "enriched with fake and test tags" })),
        )
        .await;
    browser.open_inbox().await;
    browser
        .wait_until(
            "four notes",
            "document.querySelectorAll('#notes li').length === 4",
        )
        .await;

    browser.click("#notes li button.tag").await; // #fake on the newest note

    browser.wait_visible("filter-chip").await;
    assert_eq!(browser.text("#filter-chip .text").await, "Tag: #fake");
    browser
        .wait_until(
            "one note",
            "document.querySelectorAll('#notes li').length === 1",
        )
        .await;
    browser.click("#clear-filter").await;
    browser
        .wait_until(
            "all notes again",
            "document.querySelectorAll('#notes li').length === 4",
        )
        .await;
    assert!(!browser.is_shown("filter-chip").await);
    browser.close().await;
}

#[actix_rt::test]
async fn trash_and_restore_from_the_page() {
    let browser = start_with_notes(&[], 1).await;
    browser.open_inbox().await;
    browser
        .wait_until(
            "one note",
            "document.querySelectorAll('#notes li').length === 1",
        )
        .await;

    browser.click("#notes li button.trash").await;
    browser
        .wait_until(
            "the inbox is empty",
            "document.querySelectorAll('#notes li').length === 0",
        )
        .await;
    browser.click("button[data-view=trash]").await;
    browser
        .wait_until(
            "in the trash",
            "document.querySelectorAll('#trash-notes li').length === 1",
        )
        .await;
    browser.click("#trash-notes li button.restore").await;
    browser
        .wait_until(
            "out of the trash",
            "document.querySelectorAll('#trash-notes li').length === 0",
        )
        .await;
    browser.click("button[data-view=inbox]").await;
    browser
        .wait_until(
            "back in the inbox",
            "document.querySelectorAll('#notes li').length === 1",
        )
        .await;
    browser.close().await;
}

/// Trash from the page is answered by an Undo; in the trash, "Delete forever" and
/// "Empty trash" each ask once more before they delete.
#[actix_rt::test]
async fn trash_can_be_undone_and_deleting_for_good_asks_first() {
    let browser = start(&[]).await;
    browser
        .open_inbox_with_notes(&["keep me", "delete me", "empty me"])
        .await;

    // Trash, then Undo: the note is back.
    browser.click("#notes .note:last-child button.trash").await;
    browser.wait_visible("undo-toast").await;
    browser
        .wait_until(
            "two notes",
            "document.querySelectorAll('#notes .note').length === 2",
        )
        .await;
    browser.click("#undo").await;
    browser
        .wait_until(
            "three again",
            "document.querySelectorAll('#notes .note').length === 3",
        )
        .await;
    let notes = browser.api("GET", "/api/notes?trash=true", None).await;
    assert_eq!(notes, json!([]));

    // Two to the trash.
    for _ in 0..2 {
        browser.click("#notes .note:first-child button.trash").await;
        browser.wait_visible("undo-toast").await;
    }
    browser
        .wait_until(
            "one left",
            "document.querySelectorAll('#notes .note').length === 1",
        )
        .await;
    browser.click("#views button[data-view='trash']").await;
    browser
        .wait_until(
            "two in the trash",
            "document.querySelectorAll('#trash-notes .note').length === 2",
        )
        .await;

    // Delete forever: the first click only asks.
    browser
        .click("#trash-notes .note:first-child button.delete")
        .await;
    assert_eq!(
        browser
            .text("#trash-notes .note:first-child button.delete")
            .await,
        "Really delete? It can't be undone"
    );
    assert_eq!(
        browser
            .api("GET", "/api/notes?trash=true", None)
            .await
            .as_array()
            .unwrap()
            .len(),
        2
    );
    browser
        .click("#trash-notes .note:first-child button.delete")
        .await;
    browser
        .wait_until(
            "one in the trash",
            "document.querySelectorAll('#trash-notes .note').length === 1",
        )
        .await;

    browser.click("#empty-trash").await;
    assert_eq!(
        browser.text("#empty-trash").await,
        "Really delete 1 note? It can't be undone"
    );
    browser.click("#empty-trash").await;
    browser.wait_visible("trash-empty").await;
    assert_eq!(
        browser.api("GET", "/api/notes?trash=true", None).await,
        json!([])
    );
    let left = browser.api("GET", "/api/notes", None).await;
    assert_eq!(left[0]["body"], "keep me");
    browser.close().await;
}

/// "Redo AI" on a done note sends it to the AI again; the page follows it to done.
#[actix_rt::test]
async fn redo_ai_on_a_note_runs_its_ai_again() {
    let browser = start(&[]).await;
    browser
        .api("POST", "/api/notes", Some(json!({ "body": "redo me" })))
        .await;
    browser.open_inbox().await;
    browser
        .wait_until(
            "done, with its Redo AI",
            "document.querySelector('#notes .note')?.dataset.status === 'done' && \
             document.querySelector('#notes .note button.enrich')?.textContent === 'Redo AI'",
        )
        .await;
    let before = browser.fake.calls().len();
    browser.click("#notes .note button.enrich").await;
    // The AI is asked once more, and the page shows the note done again. (Waiting for
    // the worker and the page, not testing a timed rule.)
    for _ in 0..200 {
        if browser.fake.calls().len() > before {
            break;
        }
        actix_rt::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(
        browser.fake.calls().len() > before,
        "the AI was asked again"
    );
    browser
        .wait_until(
            "done again",
            "document.querySelector('#notes .note')?.dataset.status === 'done'",
        )
        .await;
    let stats = browser.api("GET", "/api/stats?format=json", None).await;
    assert_eq!(stats["total"]["aiEnrichRequests"], 1, "{stats}");
    assert_eq!(browser.fake.calls().len(), before + 1);
    browser.close().await;
}
