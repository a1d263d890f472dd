//! The notes list's window (web/js/list-window.js): a page left open while thousands of
//! notes arrive keeps about as many cards as a fresh one, and scrolling still reaches
//! every note.

use serde_json::{json, Value};

use crate::harness::{module, start_with_notes, Browser, Scheme, Screen};

/// Imports `count` notes named `imported <i>` (the last the newest), 100 a request.
pub async fn import_notes(browser: &Browser, count: usize) {
    for batch in (0..count).collect::<Vec<_>>().chunks(100) {
        let notes: Vec<Value> = batch
            .iter()
            .map(|i| json!({ "body": format!("imported {i}") }))
            .collect();
        browser
            .api("POST", "/api/notes/import", Some(json!({ "notes": notes })))
            .await;
    }
}

const CARDS: &str = "document.querySelectorAll('#notes li').length";
const TOP: &str = "document.querySelector('#notes li a.open').textContent";

#[actix_rt::test]
async fn the_rules_of_the_window() {
    let browser = start_with_notes(&[], 0).await;
    browser.open_inbox().await;
    let answers = browser
        .eval(&format!(
            "const w = await import({});
             return [
               w.arrival({{ at: 0, length: 60, hasMore: false, atTop: true }}),
               w.arrival({{ at: 0, length: 60, hasMore: false, atTop: true, held: 59 }}),
               w.arrival({{ at: 0, length: 10, hasMore: false, atTop: true }}),
               w.arrival({{ at: 0, length: 60, hasMore: false, atTop: false }}),
               w.arrival({{ at: -1, length: 60, hasMore: false, atTop: false }}),
               w.arrival({{ at: -1, length: 30, hasMore: true, atTop: true }}),
               w.arrival({{ at: -1, length: 0, hasMore: false, atTop: false }}),
               w.keepCount({{ length: 500, atTop: true }}),
               w.keepCount({{ length: 500, atTop: true, held: 99 }}),
               w.keepCount({{ length: 500, atTop: false }}),
             ];",
            module("list-window.js")
        ))
        .await;
    assert_eq!(
        answers,
        json!([
            // At the top: on top, the 61st dropped and left to the paging.
            { "insert": 0, "newerLater": false, "hasMore": true, "keep": 60 },
            // The card being edited (now the 61st) is kept: nothing dropped.
            { "insert": 0, "newerLater": false, "hasMore": false, "keep": 61 },
            { "insert": 0, "newerLater": false, "hasMore": false, "keep": 11 },
            // Further down: newer notes wait for the top, older ones for the paging.
            { "insert": null, "newerLater": true, "hasMore": false, "keep": 60 },
            { "insert": null, "newerLater": false, "hasMore": true, "keep": 60 },
            { "insert": null, "newerLater": false, "hasMore": true, "keep": 30 },
            // An empty list takes its first note wherever the person is.
            { "insert": 0, "newerLater": false, "hasMore": false, "keep": 1 },
            60, 100, 500
        ])
    );
    browser.close().await;
}

#[actix_rt::test]
async fn two_thousand_arrivals_keep_the_list_bounded_and_every_note_reachable() {
    for screen in [Screen::Desktop, Screen::Phone] {
        let browser = start_with_notes(&[], 10).await;
        browser.emulate(screen, Scheme::Light).await;
        browser.open_inbox().await;
        browser
            .wait_until("the stored notes", &format!("{CARDS} === 10"))
            .await;

        import_notes(&browser, 2_000).await;
        browser
            .wait_until(
                "the newest import on top",
                &format!("{TOP} === 'imported 1999'"),
            )
            .await;
        let cards = browser.eval(&format!("return {CARDS};")).await;
        assert!(
            cards.as_u64().unwrap() <= 60,
            "{screen:?}: the screen and a margin, not 2,010 cards: {cards}"
        );

        // Scrolling down loads the older notes again, down to the oldest.
        browser
            .eval(
                "window.reached = false;
                 const frame = () => {
                   if ([...document.querySelectorAll('#notes li a.open')].some(a => a.textContent === 'stored note 0')) {
                     window.reached = true; return;
                   }
                   window.scrollTo(0, document.body.scrollHeight);
                   requestAnimationFrame(frame);
                 };
                 requestAnimationFrame(frame);
                 return true;",
            )
            .await;
        browser
            .wait_until("the oldest note reached by scrolling", "window.reached")
            .await;

        // A note arriving while the person is down the list waits for the top: the
        // list does not grow above them.
        // (The AI done with the imports first, so the next live change is this note's.)
        for _ in 0..60 {
            let status = browser.api("GET", "/api/status", None).await;
            if status["counts"]["pending"] == 0 {
                break;
            }
            actix_rt::time::sleep(std::time::Duration::from_secs(2)).await;
        }
        let before = browser.eval(&format!("return {CARDS};")).await;
        browser
            .eval("window.changes = 0; document.addEventListener('inkling:event', (e) => { if (e.detail.event === 'note_changed') window.changes += 1; }); return true;")
            .await;
        browser
            .api(
                "POST",
                "/api/notes",
                Some(json!({ "body": "while scrolled down" })),
            )
            .await;
        browser
            .wait_until("the page handled the note's event", "window.changes > 0")
            .await;
        assert_eq!(
            browser.eval(&format!("return {CARDS};")).await,
            before,
            "{screen:?}: nothing put above the person's place"
        );
        browser.eval("window.scrollTo(0, 0); return true;").await;
        browser
            .wait_until(
                "the note that arrived meanwhile, on top",
                &format!("{TOP} === 'while scrolled down'"),
            )
            .await;
        browser
            .wait_until("the list back to its window", &format!("{CARDS} <= 60"))
            .await;

        // j/k and opening a note work on the windowed list.
        let ids = browser
            .eval("return [...document.querySelectorAll('#notes li')].slice(0, 3).map(li => li.dataset.id);")
            .await;
        browser
            .eval("document.activeElement.blur(); return true;")
            .await;
        browser.press("jjjk").await;
        let active = browser
            .eval("const li = document.activeElement.closest('li'); return li ? li.dataset.id : null;")
            .await;
        assert_eq!(active, ids[1], "{screen:?}: j j j k is the second card");
        browser.press("\u{E007}").await; // Enter opens it
        browser.wait_visible("note-view").await;
        assert!(
            browser.text("#note-view").await.contains("imported 1999"),
            "{screen:?}: the open note is the second card's"
        );
        browser
            .assert_accessible(&format!("{screen:?}: a note open"))
            .await;
        browser.client.back().await.unwrap();
        browser.wait_visible("notes").await;
        browser
            .assert_accessible(&format!("{screen:?}: the windowed list"))
            .await;
        browser.close().await;
    }
}
