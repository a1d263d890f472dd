//! The notes list's layout and its small things (issue #42 points 1 and 10), on a
//! desktop and a phone screen: one column, newest on top, no hole between cards; tag
//! chips whole or not shown, never cut mid-word, the time never cut; "No notes match."
//! in the middle; the Undo toast gone after its few seconds and at the next action.

use serde_json::{json, Value};

use crate::daily_list::REALISTIC;
use crate::harness::{module, start, Browser, Scheme, Screen};

async fn capture(browser: &Browser, body: &str) -> String {
    let note = browser
        .api("POST", "/api/notes", Some(json!({ "body": body })))
        .await;
    note["id"].as_str().expect("captured").to_string()
}

async fn open_list(browser: &Browser, screen: Screen, cards: usize) {
    browser.emulate(screen, Scheme::Light).await;
    browser.open_inbox().await;
    browser
        .wait_until(
            "the notes listed",
            &format!("document.querySelectorAll('#notes .note').length === {cards}"),
        )
        .await;
}

/// Before: a desktop showed a grid of rows; a short card left a hole under it, and
/// newest first ran left to right, then down. Now every screen reads time down one
/// column: each card under the one before, the same width, a small gap between.
#[actix_rt::test]
async fn the_list_is_one_column_newest_first_down_the_page_with_no_holes_on_both_screens() {
    let browser = start(&[]).await;
    for body in REALISTIC {
        capture(&browser, body).await;
    }
    browser
        .wait_for_api("all done", "/api/status", |status| {
            status["counts"]["pending"] == 0
        })
        .await;
    let newest_first: Vec<String> = browser
        .api("GET", "/api/notes", None)
        .await
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["id"].as_str().unwrap().to_string())
        .collect();
    for screen in [Screen::Desktop, Screen::Phone] {
        open_list(&browser, screen, REALISTIC.len()).await;
        // Every card laid out, as when scrolled to (content-visibility skips those off
        // screen).
        let cards: Value = browser
            .eval(
                "const cards = [...document.querySelectorAll('#notes .note')];\
                 for (const card of cards) card.style.contentVisibility = 'visible';\
                 return cards.map((card) => { const r = card.getBoundingClientRect();\
                   const title = card.querySelector('h3').getBoundingClientRect();\
                   const meta = card.querySelector('.meta').getBoundingClientRect();\
                   const apart = title.right <= meta.left + 0.5 || title.bottom <= meta.top + 0.5;\
                   return [card.dataset.id, r.left, r.width, r.top, r.bottom, apart]; });",
            )
            .await;
        let cards = cards.as_array().unwrap();
        let ids: Vec<&str> = cards.iter().map(|c| c[0].as_str().unwrap()).collect();
        assert_eq!(ids, newest_first, "{screen:?}: newest first, down the page");
        for card in cards {
            assert_eq!(
                card[5],
                json!(true),
                "{screen:?}: the title over the labels: {card}"
            );
        }
        let number = |card: &Value, at: usize| card[at].as_f64().unwrap();
        for pair in cards.windows(2) {
            let (above, below) = (&pair[0], &pair[1]);
            assert_eq!(number(above, 1), number(below, 1), "{screen:?}: one column");
            assert_eq!(number(above, 2), number(below, 2), "{screen:?}: one width");
            let gap = number(below, 3) - number(above, 4);
            assert!(
                (0.0..=10.0).contains(&gap),
                "{screen:?}: {gap} px between {} and {}",
                above[0],
                below[0]
            );
        }
        let violations = browser.accessibility_violations().await;
        assert!(violations.is_empty(), "{screen:?}: {violations:?}");
    }
    browser.close().await;
}

/// Before: the labels were cut where the line ended ("#financ", "10 minutes ag"). Now
/// a chip is shown whole or not at all, and the time is always whole.
#[actix_rt::test]
async fn tag_chips_are_whole_or_not_shown_and_the_time_is_never_cut_on_both_screens() {
    let browser = start(&[]).await;
    let id = capture(&browser, "Pay the electricity bill and file the receipt").await;
    capture(&browser, "Call mom").await;
    browser
        .api(
            "PATCH",
            &format!("/api/notes/{id}"),
            Some(
                json!({ "tags": ["finance", "household-paperwork", "electricity", "receipts-2026",
                                  "bills", "monthly-budget", "utilities"] }),
            ),
        )
        .await;
    for screen in [Screen::Desktop, Screen::Phone] {
        open_list(&browser, screen, 2).await;
        browser
            .wait_until(
                "the tags shown",
                &format!(
                    "document.querySelectorAll(\"#notes li[data-id='{id}'] .tag\").length === 7"
                ),
            )
            .await;
        let labels: Value = browser
            .eval(&format!(
                "const card = document.querySelector(\"#notes li[data-id='{id}']\");\
                 const box = card.querySelector('.labels').getBoundingClientRect();\
                 const chips = [...card.querySelectorAll('.tag')].map((chip) => {{\
                   const r = chip.getBoundingClientRect();\
                   const whole = r.left >= box.left - 0.5 && r.right <= box.right + 0.5 && r.bottom <= box.bottom + 0.5;\
                   const away = r.top >= box.bottom - 0.5;\
                   return [chip.textContent, whole, away, chip.scrollWidth <= chip.clientWidth];\
                 }});\
                 const times = [...document.querySelectorAll('#notes .note')].map((note) => {{\
                   const time = note.querySelector('time');\
                   const r = time.getBoundingClientRect(), c = note.getBoundingClientRect();\
                   return [time.textContent, time.scrollWidth <= time.clientWidth + 0.5 && r.right <= c.right && r.width > 0];\
                 }});\
                 return {{ chips, times }};"
            ))
            .await;
        let chips = labels["chips"].as_array().unwrap();
        assert!(
            chips
                .iter()
                .all(|c| (c[1] == json!(true)) != (c[2] == json!(true)) && c[3] == json!(true)),
            "{screen:?}: a chip cut: {chips:?}"
        );
        assert!(
            chips.iter().any(|c| c[1] == json!(true)),
            "{screen:?}: no chip shown: {chips:?}"
        );
        for time in labels["times"].as_array().unwrap() {
            assert_eq!(time[1], json!(true), "{screen:?}: the time cut: {time}");
        }
        browser
            .assert_accessible(&format!("{screen:?}: the chips"))
            .await;
    }
    browser.close().await;
}

/// Before: "No notes match." stood at the list's left edge. Now it is in the middle.
#[actix_rt::test]
async fn no_notes_match_is_said_in_the_middle_on_both_screens() {
    let browser = start(&[]).await;
    capture(&browser, "Call mom").await;
    for screen in [Screen::Desktop, Screen::Phone] {
        open_list(&browser, screen, 1).await;
        browser.type_into("#search", "zzzz").await;
        browser.wait_visible("notes-empty").await;
        let centres = browser
            .eval(
                "const empty = document.getElementById('notes-empty');\
                 const range = document.createRange(); range.selectNodeContents(empty);\
                 const text = range.getBoundingClientRect();\
                 const list = document.getElementById('notes').getBoundingClientRect();\
                 return [empty.textContent, (text.left + text.right) / 2, (list.left + list.right) / 2];",
            )
            .await;
        assert_eq!(centres[0], "No notes match.");
        let (text, list) = (centres[1].as_f64().unwrap(), centres[2].as_f64().unwrap());
        assert!(
            (text - list).abs() <= 2.0,
            "{screen:?}: the words' middle at {text}, the list's at {list}"
        );
        browser.press("\u{E00C}").await;
    }
    browser.close().await;
}

/// Before: the Undo toast stayed on. Now it goes after its few seconds (the page's
/// timer is stood in for: its callback run at once) and at the next action elsewhere (a
/// key); moving to it with Tab is not another action.
#[actix_rt::test]
async fn the_undo_toast_goes_after_its_seconds_and_at_the_next_action_on_both_screens() {
    let browser = start(&[]).await;
    for i in 0..4 {
        capture(&browser, &format!("note {i} to trash")).await;
    }
    for (round, screen) in [Screen::Desktop, Screen::Phone].into_iter().enumerate() {
        open_list(&browser, screen, 4 - 2 * round).await;
        let ms = browser
            .eval(&format!(
                "const banners = await import({});\
                 window.undoLater = null;\
                 banners.timers.later = (run, ms) => {{ window.undoLater = {{ run, ms }}; return 0; }};\
                 banners.timers.cancel = () => {{}};\
                 return banners.UNDO_MS;",
                module("banners.js")
            ))
            .await;
        let ms = ms.as_u64().unwrap();
        assert!((3000..=10_000).contains(&ms), "a few seconds: {ms} ms");
        browser.click("#notes .note:first-child button.trash").await;
        browser.wait_visible("undo-toast").await;
        assert_eq!(browser.eval("return window.undoLater.ms;").await, json!(ms));
        browser.eval("window.undoLater.run(); return null;").await;
        assert!(
            !browser.is_shown("undo-toast").await,
            "{screen:?}: gone after its seconds"
        );

        browser.click("#notes .note:first-child button.trash").await;
        browser.wait_visible("undo-toast").await;
        browser.press("\u{E004}").await; // Tab: on the way to Undo
        assert!(
            browser.is_shown("undo-toast").await,
            "{screen:?}: Tab is no action"
        );
        browser.press("j").await;
        assert!(
            !browser.is_shown("undo-toast").await,
            "{screen:?}: gone at the next action"
        );
        browser.assert_plain_words().await;
    }
    browser.close().await;
}
