//! The open note's "Related" panel (docs/DESIGN.md, "Related notes"): the notes nearest
//! by meaning, each a link that opens it; nothing shown for a note with none. The fake
//! Ollama's vectors are bag-of-words, so which notes are related is known.

use serde_json::json;

use crate::harness::{start, Browser};

async fn capture(browser: &Browser, body: &str) -> String {
    let note = browser
        .api("POST", "/api/notes", Some(json!({ "body": body })))
        .await;
    note["id"].as_str().expect("captured").to_string()
}

async fn embedded(browser: &Browser, id: &str) {
    browser
        .wait_for_api(
            "the note's vector",
            &format!("/api/notes/{id}/related"),
            |r| r["embedded"] == true,
        )
        .await;
}

#[actix_rt::test]
async fn the_open_note_lists_its_related_notes_as_links_and_a_note_with_none_shows_no_panel() {
    let browser = start(&[]).await;
    let tomato = capture(&browser, "Water the tomato plants in the garden").await;
    let compost = capture(&browser, "Tomato plants in the garden need compost").await;
    let tax = capture(&browser, "File the tax return before April").await;
    for id in [&tomato, &compost, &tax] {
        embedded(&browser, id).await;
    }
    browser.open_inbox().await;
    browser
        .wait_until(
            "listed",
            "document.querySelectorAll('#notes .note').length === 3",
        )
        .await;
    browser
        .click(&format!("#notes li[data-id='{tomato}'] a.open"))
        .await;
    browser.wait_visible("note-view").await;
    browser
        .wait_until(
            "the related panel",
            "document.querySelector('#note-detail .related:not([hidden]) li a')",
        )
        .await;
    let panel = browser
        .eval(
            "const p = document.querySelector('#note-detail .related'); \
             return [p.querySelector('h3').textContent, \
                     [...p.querySelectorAll('li a')].map(a => a.getAttribute('href'))];",
        )
        .await;
    assert_eq!(
        panel,
        json!(["Related", [format!("/?note={compost}")]]),
        "the tax note is not related"
    );
    browser.assert_accessible("the Related panel").await;

    // A related note opens at its own address, and lists the first in turn.
    browser.click("#note-detail .related li a").await;
    browser
        .wait_until(
            "the other note",
            &format!("location.search === '?note={compost}' && document.querySelector(\"#note-detail[data-id='{compost}'] .related li a[href='/?note={tomato}']\")"),
        )
        .await;

    // A note with no related notes: no panel at all.
    browser
        .eval(&format!("history.pushState(null, '', '/?note={tax}'); dispatchEvent(new PopStateEvent('popstate')); return true;"))
        .await;
    browser
        .wait_until(
            "the tax note",
            &format!("document.querySelector(\"#note-detail[data-id='{tax}'] .rendered\")"),
        )
        .await;
    browser
        .wait_until(
            "the tax note's related notes answered",
            &format!(
                "document.querySelector(\"#note-detail[data-id='{tax}'] .related[data-answered='true']\")"
            ),
        )
        .await;
    let shown = browser
        .eval("return document.querySelector('#note-detail .related').hidden;")
        .await;
    assert_eq!(shown, json!(true));
    browser.close().await;
}
