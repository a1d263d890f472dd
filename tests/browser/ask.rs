//! The Ask box (docs/DESIGN.md, "Ask your notes"): a question from the search box, the
//! notes as numbered cards at once, the answer streaming under them with its citations
//! as links to those notes, a citation of another note taken out and said, and "Save
//! as note". The fake Ollama streams the answer the test sets.

use serde_json::json;

use crate::harness::{start, Browser};

async fn capture(browser: &Browser, body: &str) -> String {
    let note = browser
        .api("POST", "/api/notes", Some(json!({ "body": body })))
        .await;
    note["id"].as_str().expect("captured").to_string()
}

#[actix_rt::test]
async fn the_ask_box_shows_the_notes_then_the_answer_with_citations_as_links_and_saves_it() {
    let browser = start(&[]).await;
    let water = capture(&browser, "Water the tomato plants on Sunday morning").await;
    let compost = capture(&browser, "Buy compost for the tomato bed").await;
    browser.fake.answers().set_pieces(&[
        "Water them on Sunday [1] with compost [2",
        "] and salt [9].",
    ]);
    browser.open_inbox().await;
    browser
        .wait_until(
            "listed",
            "document.querySelectorAll('#notes .note').length === 2",
        )
        .await;

    browser
        .type_into("#search", "When do I water the tomato plants?")
        .await;
    browser.click("#ask-button").await;
    browser
        .wait_until(
            "the answer",
            "document.getElementById('ask-panel').dataset.state === 'answered'",
        )
        .await;
    let shown = browser
        .eval(
            "return [[...document.querySelectorAll('#ask-notes li')].map(li => li.dataset.id), \
                     document.getElementById('ask-answer').textContent, \
                     [...document.querySelectorAll('#ask-answer a.citation')].map(a => a.getAttribute('href')), \
                     document.getElementById('ask-removed').textContent, \
                     document.getElementById('ask-save').hidden];",
        )
        .await;
    assert_eq!(
        shown,
        json!([
            [water, compost],
            "Water them on Sunday [1] with compost [2] and salt.",
            [format!("/?note={water}"), format!("/?note={compost}")],
            "The answer cited [9], which is none of the notes shown; it was taken out.",
            false
        ])
    );
    browser.assert_accessible("the Ask panel").await;

    // Nothing was stored until the person saves the answer: one click.
    assert_eq!(
        browser
            .api("GET", "/api/notes", None)
            .await
            .as_array()
            .unwrap()
            .len(),
        2
    );
    browser.click("#ask-save").await;
    browser
        .wait_for_api("the answer saved", "/api/notes", |notes| {
            notes.as_array().unwrap().iter().any(|n| {
                n["body"].as_str().unwrap().starts_with(
                    "Q: When do I water the tomato plants?\n\nWater them on Sunday [1] with compost [2] and salt.\n\n[1] ",
                )
            })
        })
        .await;

    // A citation opens its note.
    browser.click("#ask-answer a.citation").await;
    browser
        .wait_until(
            "the cited note",
            &format!("new URLSearchParams(location.search).get('note') === '{water}' && document.querySelector(\"#note-detail[data-id='{water}']\")"),
        )
        .await;
}

#[actix_rt::test]
async fn with_the_model_missing_the_ask_box_shows_the_notes_and_one_line_why() {
    let browser = start(&[]).await;
    capture(&browser, "Water the tomato plants on Sunday morning").await;
    browser.fake.set_models(&["embeddinggemma:latest"]);
    browser
        .api("POST", "/api/ollama/recheck", Some(json!({})))
        .await;
    browser
        .wait_for_api("the model seen missing", "/api/status", |status| {
            status["provider"]["state"] == "model_missing"
        })
        .await;
    browser.open_inbox().await;
    // Ctrl+Enter in the search box asks (WebDriver keys: Control held, Enter, release).
    browser
        .type_into("#search", "tomato\u{E009}\u{E007}\u{E000}")
        .await;
    browser
        .wait_until(
            "the line why",
            "document.getElementById('ask-panel').dataset.state === 'unanswered'",
        )
        .await;
    let shown = browser
        .eval(
            "return [document.querySelectorAll('#ask-notes li').length, \
                     document.getElementById('ask-status').textContent, \
                     document.getElementById('ask-answer').textContent];",
        )
        .await;
    assert_eq!(shown[0], 1);
    assert!(
        shown[1].as_str().unwrap().contains("not installed"),
        "{shown}"
    );
    assert_eq!(shown[2], "");

    // × closes the panel, and nothing throws (its button shares the banners' look, and
    // once shared their handler, which looked for a banner it does not have).
    browser
        .eval(
            "window.__errors = []; \
             window.addEventListener('error', (e) => window.__errors.push(String(e.message))); \
             return null;",
        )
        .await;
    browser.click("#ask-close").await;
    browser
        .wait_until(
            "the panel closed",
            "document.getElementById('ask-panel').hidden",
        )
        .await;
    assert_eq!(browser.eval("return window.__errors;").await, json!([]));
}

/// The panel is drawn from its state, and the state is a pure function of the stream's
/// events: the notes, the answer's pieces in order, a citation taken out, the end; an
/// answer that could not come says why.
#[actix_rt::test]
async fn the_ask_state_follows_the_streams_events() {
    let browser = start(&[]).await;
    browser.open_inbox().await;
    let states = browser
        .eval(&format!(
            "const {{ asked, withEvent, askFailed }} = await import({});\
             let ask = asked(1, 'When?');\
             const first = [ask.phase, ask.status !== '', ask.saveShown];\
             for (const event of [\
               {{ type: 'notes', notes: [{{ id: 'a' }}] }},\
               {{ type: 'answer', text: 'On Sunday ' }},\
               {{ type: 'answer', text: '[1]' }},\
               {{ type: 'removed', citation: '[9]' }},\
               {{ type: 'done', answered: true }},\
             ]) ask = withEvent(ask, event);\
             const failed = askFailed(asked(2, 'Why?'), 'inkling is down');\
             const unanswered = withEvent(asked(3, 'What?'), {{ type: 'done', answered: false, why: 'no model' }});\
             return [first,\
                     [ask.phase, ask.notes.length, ask.answer, ask.removed, ask.status, ask.saveShown],\
                     [failed.phase, failed.status],\
                     [unanswered.phase, unanswered.status, unanswered.saveShown]];",
            crate::harness::module("ask.js")
        ))
        .await;
    assert_eq!(
        states,
        json!([
            ["asking", true, false],
            ["answered", 1, "On Sunday [1]", ["[9]"], "", true],
            ["failed", "inkling is down"],
            ["unanswered", "no model", false]
        ])
    );
    browser.close().await;
}
