//! The open note (issue #42 points 7 and 9): one heading, the note's own where it has
//! one, and the AI's values (its title, its tags) said in its section with where each
//! came from; the focus kept where the person was after a tick or a saved edit, for a
//! keyboard; on a desktop and a phone screen.

use serde_json::{json, Value};

use crate::harness::{start, Browser, Scheme, Screen};

async fn capture(browser: &Browser, body: &str) -> String {
    let note = browser
        .api("POST", "/api/notes", Some(json!({ "body": body })))
        .await;
    note["id"].as_str().expect("captured").to_string()
}

async fn open_note(browser: &Browser, id: &str) {
    browser.open_inbox().await;
    browser
        .click(&format!("#notes li[data-id='{id}'] a.open"))
        .await;
    browser
        .wait_until(
            "the note rendered",
            &format!("document.querySelector(\"#note-detail[data-id='{id}'] .rendered\")"),
        )
        .await;
}

/// Before: the AI section read "Title: by the AI / Summary: by the AI" with no values,
/// and a note with a heading of its own showed two headings, the AI's title over it.
#[actix_rt::test]
async fn the_open_note_has_one_heading_and_its_ai_section_says_each_value_once() {
    let browser = start(&[]).await;
    let id = capture(
        &browser,
        "# Project Falcon kickoff\nAttendees: Ana, Ben\n- scope: import from Keep",
    )
    .await;
    let note = browser
        .wait_for_api("done", &format!("/api/notes/{id}"), |note| {
            note["ai_status"] == "done"
        })
        .await;
    let ai_title = note["title"].as_str().unwrap().to_string();
    for screen in [Screen::Desktop, Screen::Phone] {
        browser.emulate(screen, Scheme::Light).await;
        open_note(&browser, &id).await;
        let page: Value = browser
            .eval(
                "const detail = document.getElementById('note-detail');\
                 const facts = [...detail.querySelectorAll('.ai-section dt')].map((dt) =>\
                   [dt.textContent, dt.nextElementSibling.textContent.replace(/\\s+/g, ' ').trim()]);\
                 return {\
                   headings: [...detail.querySelectorAll('h2, .rendered :is(h1,h2,h3,h4,h5,h6)')].map((h) => h.textContent),\
                   facts,\
                   summaries: detail.querySelectorAll('.summary').length,\
                 };",
            )
            .await;
        assert_eq!(
            page,
            json!({
                "headings": ["Project Falcon kickoff"],
                "facts": [
                    ["Title", format!("{ai_title} (by the AI)")],
                    ["Tags", "#fake #test (by the AI)"],
                ],
                "summaries": 1,
            }),
            "{screen:?}"
        );
        browser
            .assert_accessible(&format!("{screen:?}: the open note"))
            .await;
    }
    browser.close().await;
}

/// Before: a tick or a saved edit drew the note again and the focus fell to the page's
/// top: a keyboard's place was lost. Now a ticked box keeps the focus, and a saved edit
/// gives it to Edit, where the person started.
#[actix_rt::test]
async fn a_tick_and_a_saved_edit_keep_the_focus_in_the_open_note() {
    let browser = start(&[]).await;
    let id = capture(&browser, "Packing\n- [ ] passport\n- [ ] charger").await;
    for (round, screen) in [Screen::Desktop, Screen::Phone].into_iter().enumerate() {
        browser.emulate(screen, Scheme::Light).await;
        open_note(&browser, &id).await;
        // The box this round ticks: the first, then the second.
        let boxed = format!("#note-detail .rendered input[data-task='{round}']");
        browser
            .eval(&format!(
                "document.querySelector(\"{boxed}\").drawnBefore = true; return null;"
            ))
            .await;
        browser.click(&boxed).await;
        browser
            .wait_until(
                "the note drawn again with the tick",
                &format!(
                    "(() => {{ const box = document.querySelector(\"{boxed}\");\
                       return box && !box.drawnBefore && box.checked; }})()"
                ),
            )
            .await;
        assert_eq!(
            browser
                .eval(&format!(
                    "return document.activeElement === document.querySelector(\"{boxed}\");"
                ))
                .await,
            json!(true),
            "{screen:?}: the focus on the ticked box"
        );

        browser
            .click("#note-detail .detail-actions button.edit")
            .await;
        browser
            .wait_until(
                "the edit form",
                "document.querySelector('#note-detail form.edit textarea')",
            )
            .await;
        let words = format!("Packing, round {round}");
        browser
            .eval(&format!(
                "const body = document.querySelector('#note-detail form.edit textarea');\
                 body.value = body.value.replace(/^Packing[^\\n]*/, '{words}'); return null;"
            ))
            .await;
        browser
            .click("#note-detail form.edit button[type=submit]")
            .await;
        browser
            .wait_until(
                "the saved edit shown",
                &format!(
                    "!document.querySelector('#note-detail form.edit') && \
                     document.getElementById('note-detail').textContent.includes('{words}')"
                ),
            )
            .await;
        browser
            .wait_until(
                "the focus on Edit",
                "document.activeElement === document.querySelector('#note-detail .detail-actions button.edit')",
            )
            .await;
    }
    browser.close().await;
}
