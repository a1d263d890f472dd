//! The Ask box (docs/DESIGN.md, "Ask your notes"): a question from the search box, the
//! answer first, streaming, with its citations as links to its notes, and the notes
//! numbered under it as the list's cards (ticked there as on the list), a citation of
//! another note taken out and said, and "Save as note": the answer stored as an answer,
//! its notes as links by title that open them. The fake Ollama streams the answer the
//! test sets.

use serde_json::{json, Value};

use crate::harness::{start, Browser, Scheme, Screen};

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
                n["kind"] == "answer"
                    && n["body"].as_str().unwrap().starts_with(
                        "Q: When do I water the tomato plants?\n\nWater them on Sunday [1] with compost [2] and salt.\n\n1. [",
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

/// Asks `question` from the search box and waits for the whole answer.
async fn ask_and_wait(browser: &Browser, question: &str) {
    browser.type_into("#search", question).await;
    browser.click("#ask-button").await;
    browser
        .wait_until(
            "the answer",
            "document.getElementById('ask-panel').dataset.state === 'answered'",
        )
        .await;
}

/// Before (issue #42 point 2): the answer streamed under five source cards, on a phone
/// about 720 px down an 844 px screen. Now the answer comes first, its notes numbered
/// under it as the list's own cards (issue #42 point 4): a checklist rendered and ticked
/// there, each title opening its note.
#[actix_rt::test]
async fn the_answer_comes_first_within_the_first_screen_and_its_notes_are_the_lists_cards_under_it()
{
    let browser = start(&[]).await;
    let list = capture(
        &browser,
        "Tomato shopping\n- [ ] tomato seedlings\n- [x] tomato stakes\n- [ ] compost",
    )
    .await;
    let mut others = Vec::new();
    for i in 0..4 {
        others.push(
            capture(
                &browser,
                &format!("Tomato bed {i}: water the tomato plants on Sunday, more about the soil and the sun"),
            )
            .await,
        );
    }
    browser
        .wait_for_api("all done", "/api/status", |status| {
            status["counts"]["pending"] == 0
        })
        .await;
    for screen in [Screen::Desktop, Screen::Phone] {
        browser
            .fake
            .answers()
            .set_pieces(&["Buy the seedlings [1] and water on Sunday [2]."]);
        browser.emulate(screen, Scheme::Light).await;
        browser.open_inbox().await;
        ask_and_wait(&browser, "What do I need for the tomato plants?").await;
        let shown = browser
            .eval(
                "const answer = document.getElementById('ask-answer');\
                 const notes = document.getElementById('ask-notes');\
                 const cards = [...notes.querySelectorAll('li.note')];\
                 return [answer.getBoundingClientRect().top, innerHeight,\
                   Boolean(answer.compareDocumentPosition(notes) & Node.DOCUMENT_POSITION_FOLLOWING),\
                   cards.map((c) => c.querySelector('.ask-number').textContent),\
                   cards.length];",
            )
            .await;
        let top = shown[0].as_f64().unwrap();
        let height = shown[1].as_f64().unwrap();
        assert!(
            top >= 0.0 && top + 40.0 <= height,
            "{screen:?}: the answer starts at {top} px of {height}"
        );
        assert_eq!(
            shown[2],
            json!(true),
            "{screen:?}: the answer before its notes"
        );
        assert_eq!(shown[4], json!(5), "{screen:?}: {shown}");
        assert_eq!(shown[3][0], json!("[1]"));
        // The checklist note is a card as on the list: its items boxes, not "- [ ]".
        let card = format!("#ask-notes li.note[data-id='{list}']");
        let boxes = browser
            .eval(&format!(
                "const card = document.querySelector(\"{card}\");\
                 return [card.querySelectorAll('.preview input[type=checkbox]').length,\
                         card.textContent.includes('[ ]') || card.textContent.includes('[x]')];"
            ))
            .await;
        assert_eq!(boxes, json!([3, false]), "{screen:?}");
        browser
            .assert_accessible(&format!("{screen:?}: the Ask panel"))
            .await;
        // A box ticked on the source's card is a tick of the note.
        let first = !matches!(screen, Screen::Phone);
        browser
            .click(&format!("{card} .preview input[data-task='0']"))
            .await;
        browser
            .wait_for_api("ticked", &format!("/api/notes/{list}"), |note| {
                note["body"].as_str().unwrap().contains(if first {
                    "- [x] tomato seedlings"
                } else {
                    "- [ ] tomato seedlings"
                })
            })
            .await;
        browser
            .wait_until(
                "the card shows the tick, the focus kept on its box",
                &format!(
                    "document.querySelector(\"{card} .preview input[data-task='0']\").checked === {first} && \
                     document.activeElement === document.querySelector(\"{card} .preview input[data-task='0']\")"
                ),
            )
            .await;
        // Its title opens the note.
        browser.click(&format!("{card} h3 a.open")).await;
        browser
            .wait_until(
                "the note open",
                &format!("document.querySelector(\"#note-detail[data-id='{list}']\")"),
            )
            .await;
    }
    browser.close().await;
}

/// Before (issue #42 point 3): "Save as note" stored the notes' raw ids, and the saved
/// answers came back as sources [1] and [2] of the same question. Now the answer is
/// stored as an answer, its notes as links by title that open them in the page, and it
/// is not among the notes of the next question.
#[actix_rt::test]
async fn a_saved_answer_links_its_notes_by_title_and_is_not_a_source_of_the_next_question() {
    let browser = start(&[]).await;
    let water = capture(&browser, "Water the tomato plants on Sunday morning").await;
    let compost = capture(&browser, "Buy compost for the tomato bed").await;
    browser
        .wait_for_api("all done", "/api/status", |status| {
            status["counts"]["pending"] == 0
        })
        .await;
    browser
        .fake
        .answers()
        .set_pieces(&["On Sunday [1], with compost [2]."]);
    browser.open_inbox().await;
    ask_and_wait(&browser, "When do I water the tomato plants?").await;
    browser.click("#ask-save").await;
    let notes = browser
        .wait_for_api("the answer saved", "/api/notes", |notes| {
            notes
                .as_array()
                .unwrap()
                .iter()
                .any(|n| n["kind"] == "answer")
        })
        .await;
    let saved: &Value = notes
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["kind"] == "answer")
        .unwrap();
    let saved_id = saved["id"].as_str().unwrap().to_string();
    let title = |id: &str| {
        let note = notes
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["id"] == id)
            .unwrap();
        note["title"].as_str().unwrap().to_string()
    };
    let (water_title, compost_title) = (title(&water), title(&compost));

    for screen in [Screen::Desktop, Screen::Phone] {
        browser.emulate(screen, Scheme::Light).await;
        browser.open_inbox().await;
        // On its card, and in the open note: links by title to the notes' addresses.
        let card = format!("#notes li.note[data-id='{saved_id}']");
        browser
            .wait_until(
                "the saved answer listed",
                &format!("document.querySelector(\"{card}\")"),
            )
            .await;
        let links = "return [...document.querySelectorAll(SELECTOR)].map((a) => \
                     [a.textContent, a.getAttribute('href'), a.dataset.note]);";
        let on_card = browser
            .eval(&links.replace("SELECTOR", &format!("\"{card} .preview a\"")))
            .await;
        let expected = json!([
            [water_title, format!("/?note={water}"), water],
            [compost_title, format!("/?note={compost}"), compost],
        ]);
        assert_eq!(on_card, expected, "{screen:?}: the card's links");
        browser.click(&format!("{card} h3 a.open")).await;
        browser
            .wait_until(
                "the saved answer open",
                &format!(
                    "document.querySelector(\"#note-detail[data-id='{saved_id}'] .rendered a\")"
                ),
            )
            .await;
        let in_note = browser
            .eval(&links.replace("SELECTOR", "'#note-detail .rendered a'"))
            .await;
        assert_eq!(in_note, expected, "{screen:?}: the open note's links");
        browser
            .assert_accessible(&format!("{screen:?}: the saved answer"))
            .await;
        // A link opens its note in the page (no new load: the mark set here stays).
        browser.eval("window.stayed = true; return null;").await;
        browser.click("#note-detail .rendered a").await;
        browser
            .wait_until(
                "the linked note open",
                &format!("document.querySelector(\"#note-detail[data-id='{water}']\") && window.stayed === true"),
            )
            .await;
    }

    // The same question again: the saved answer is not one of its notes.
    browser.fake.answers().set_pieces(&["On Sunday [1]."]);
    browser.open_inbox().await;
    ask_and_wait(&browser, "When do I water the tomato plants?").await;
    let sources = browser
        .eval("return [...document.querySelectorAll('#ask-notes li.note')].map((li) => li.dataset.id);")
        .await;
    let sources: Vec<String> = serde_json::from_value(sources).unwrap();
    assert!(sources.contains(&water), "{sources:?}");
    assert!(
        !sources.contains(&saved_id),
        "the saved answer is a source: {sources:?}"
    );
    browser.close().await;
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
             const saved = (await import({})).answerNote(' Q? ', 'A [1] and [2].\\n', [\
               {{ id: 'a', title: 'Bill [2026]', body: 'x' }}, {{ id: 'b', title: null, body: '\\n# first line\\nmore' }}]);\
             return [first,\
                     [ask.phase, ask.notes.length, ask.answer, ask.removed, ask.status, ask.saveShown],\
                     [failed.phase, failed.status],\
                     [unanswered.phase, unanswered.status, unanswered.saveShown], saved];",
            crate::harness::module("ask.js"),
            crate::harness::module("ask.js")
        ))
        .await;
    assert_eq!(
        states,
        json!([
            ["asking", true, false],
            ["answered", 1, "On Sunday [1]", ["[9]"], "", true],
            ["failed", "inkling is down"],
            ["unanswered", "no model", false],
            // As `inkling ask --save` writes it (src/cli/render.rs, its unit test).
            "Q: Q?\n\nA [1] and [2].\n\n1. [Bill \\[2026\\]](/?note=a)\n2. [# first line](/?note=b)"
        ])
    );
    browser.close().await;
}
