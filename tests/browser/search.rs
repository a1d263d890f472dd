//! The hybrid search on the page (docs/DESIGN.md, "Hybrid search"): a note found by
//! its meaning among the words' hits, saying so on its card; and, when the meaning
//! cannot be used, one quiet line under the search box saying why. The fake Ollama's
//! vectors are bag-of-words with a few synonyms ("automobile" read as "car").

use serde_json::json;

use crate::fake_ollama::EmbedReply;
use crate::harness::{start, Browser, Scheme, Screen};

async fn capture(browser: &Browser, body: &str) -> String {
    let note = browser
        .api("POST", "/api/notes", Some(json!({ "body": body })))
        .await;
    note["id"].as_str().expect("captured").to_string()
}

#[actix_rt::test]
async fn a_search_shows_the_notes_found_by_meaning_and_says_when_it_found_by_words_only() {
    let browser = start(&[]).await;
    let car = capture(&browser, "Take the car to the garage Friday").await;
    let insurance = capture(&browser, "Automobile insurance renewal").await;
    capture(&browser, "Tomato soup recipe").await;
    browser
        .wait_for_api("the notes' vectors", "/api/search?q=automobile", |answer| {
            answer["hits"]
                .as_array()
                .is_some_and(|hits| hits.len() == 2)
        })
        .await;
    browser.open_inbox().await;
    browser.type_into("#search", "automobile").await;
    browser
        .wait_until(
            "the hits by words and by meaning",
            "document.querySelectorAll('#notes .note').length === 2",
        )
        .await;
    let cards = browser
        .eval(
            "return [...document.querySelectorAll('#notes .note')].map(card => [\
                card.dataset.id, \
                card.querySelector('.found-by')?.textContent ?? null, \
                card.querySelector('h3').textContent, \
                [...card.querySelectorAll('mark')].map(m => m.textContent)]);",
        )
        .await;
    assert_eq!(
        cards,
        json!([
            [
                insurance,
                null,
                "Automobile insurance renewal",
                ["Automobile"]
            ],
            [
                car,
                "Found by meaning",
                "Take the car to the garage Friday",
                []
            ],
        ])
    );
    assert!(
        !browser.is_shown("search-mode").await,
        "the meaning was used"
    );

    // The embedding model gone: the next search finds by words and says why, once.
    browser.fake.set_embed(EmbedReply::ModelMissing);
    browser.type_into("#search", "insurance").await;
    browser.wait_visible("search-mode").await;
    assert_eq!(
        browser.text("#search-mode").await,
        "Found by words only: the embedding model embeddinggemma is not installed \
         (the status says how to get it)."
    );
    assert_eq!(
        browser
            .eval("return document.querySelectorAll('#notes .note').length")
            .await,
        json!(1)
    );
    browser
        .assert_accessible("a search found by words only")
        .await;
    // No search (Escape clears it), no line.
    browser.press("\u{E00C}").await;
    browser
        .wait_until(
            "the list back",
            "document.querySelectorAll('#notes .note').length === 3",
        )
        .await;
    assert!(!browser.is_shown("search-mode").await);
    browser.close().await;
}

/// Before (issue #42 point 4): a hit showed its body flattened ("- [ ] tomatoes - [x]
/// oat milk…") and its checklist could not be ticked. Now a hit is the list's card: its
/// body rendered, its boxes ticked there, the words that matched marked.
#[actix_rt::test]
async fn a_search_hit_is_the_lists_card_its_checklist_rendered_and_tickable_on_both_screens() {
    let browser = start(&[]).await;
    let id = capture(
        &browser,
        "Groceries\n- [ ] tomatoes\n- [x] oat milk\n- [ ] **fresh** basil",
    )
    .await;
    capture(&browser, "Call the plumber about the boiler").await;
    for (round, screen) in [Screen::Desktop, Screen::Phone].into_iter().enumerate() {
        browser.emulate(screen, Scheme::Light).await;
        browser.open_inbox().await;
        browser.type_into("#search", "tomatoes").await;
        let card = format!("#notes li.note[data-id='{id}']");
        browser
            .wait_until(
                "the hit",
                &format!(
                    "document.querySelectorAll('#notes .note').length === 1 && \
                     document.querySelector(\"{card} .preview input[type=checkbox]\")"
                ),
            )
            .await;
        let shown = browser
            .eval(&format!(
                "const card = document.querySelector(\"{card}\");\
                 return [[...card.querySelectorAll('.preview input[type=checkbox]')].map((b) => [b.checked, b.disabled]),\
                         card.querySelector('.preview strong')?.textContent ?? null,\
                         [...card.querySelectorAll('mark')].map((m) => m.textContent),\
                         card.textContent.includes('[ ]') || card.textContent.includes('**')];"
            ))
            .await;
        let first = round == 1;
        assert_eq!(
            shown,
            json!([
                [[first, false], [true, false], [false, false]],
                "fresh",
                ["tomatoes"],
                false
            ]),
            "{screen:?}"
        );
        browser
            .assert_accessible(&format!("{screen:?}: a hit's card"))
            .await;
        browser
            .click(&format!("{card} .preview input[data-task='0']"))
            .await;
        let ticked = if first {
            "- [ ] tomatoes"
        } else {
            "- [x] tomatoes"
        };
        browser
            .wait_for_api("ticked from the hit", &format!("/api/notes/{id}"), |note| {
                note["body"].as_str().unwrap().contains(ticked)
            })
            .await;
        browser
            .wait_until(
                "the hit shows the tick, its word still marked",
                &format!(
                    "document.querySelector(\"{card} .preview input[data-task='0']\").checked === {} && \
                     document.querySelector(\"{card} mark\")",
                    !first
                ),
            )
            .await;
        browser.press("\u{E00C}").await;
    }
    browser.close().await;
}
