//! The notes list as a daily notes app (issue #28), on a desktop and a phone screen: a
//! capture and its AI answer move nothing (layout shift 0, no banner for one capture);
//! a search says how much of it is shown and brings the rest on scroll; keyboard
//! triage keeps its place; cards show the body formatted, their checklists tickable;
//! a short note is its own heading and no card says its words twice; and a first
//! screen holds at least eight realistic notes on a desktop, four on a phone.

use serde_json::json;

use crate::fake_ollama::Reply;
use crate::harness::{start, start_with_notes, Browser, Scheme, Screen};

/// The layout shifts the page made since `window.shifts` was set up, not counting those
/// right after a person's input (the CLS measure: `hadRecentInput` ones are expected).
const WATCH_SHIFTS: &str = "window.shifts = 0;\
     window.bannerShown = false;\
     new PerformanceObserver((list) => {\
       for (const entry of list.getEntries()) if (!entry.hadRecentInput) window.shifts += entry.value;\
     }).observe({ type: 'layout-shift' });\
     new MutationObserver(() => {\
       if (!document.getElementById('pending-banner').hidden) window.bannerShown = true;\
     }).observe(document.getElementById('pending-banner'), { attributes: true });";

/// A JS function: the card's height once the browser has laid it out for a frame. A
/// card put on the page a moment ago (content-visibility: auto) is sized by its
/// placeholder (`contain-intrinsic-size`) until the browser has found it on screen,
/// at its next rendering; a ResizeObserver reports after that, with the size painted.
const LAID_OUT_HEIGHT: &str = "const laidOutHeight = (card) => new Promise((done) =>\
       new ResizeObserver((entries, observer) => {\
         observer.disconnect();\
         done(entries[0].borderBoxSize[0].blockSize);\
       }).observe(card));";

#[actix_rt::test]
async fn a_capture_and_its_ai_answer_move_nothing_on_the_list_on_both_screens() {
    let browser = start_with_notes(&[], 3).await;
    // The model answers a second after it is asked: the answer comes well after the
    // keypress that saved the note, so its shifts would count.
    browser.fake.set_default(Reply::OkAfterSeconds(1));
    for (round, screen) in [Screen::Desktop, Screen::Phone].into_iter().enumerate() {
        browser.emulate(screen, Scheme::Light).await;
        browser.open_inbox().await;
        browser
            .wait_until(
                "the stored notes listed",
                &format!(
                    "document.querySelectorAll('#notes .note').length === {}",
                    3 + round
                ),
            )
            .await;
        browser.eval(WATCH_SHIFTS).await;
        let body = format!(
            "Ask the landlord about the boiler service before the cold weather starts \
             next month, round {round}, and keep the receipt"
        );
        browser.type_into("#capture-body", &body).await;
        browser.save_with_ctrl_enter().await;
        let card = "#notes .note:first-child";
        browser
            .wait_until(
                "the pending card",
                &format!("document.querySelector('{card}').dataset.status === 'pending'"),
            )
            .await;
        // Measured as painted, not as first placed (see LAID_OUT_HEIGHT): still pending.
        let pending = browser
            .eval(&format!(
                "{LAID_OUT_HEIGHT}\
                 const card = document.querySelector('{card}');\
                 const height = await laidOutHeight(card);\
                 return [card.querySelector('.preview').textContent, height,\
                         card.querySelector('.meta .badge').textContent, card.dataset.status];"
            ))
            .await;
        browser
            .wait_until(
                "the AI's answer shown",
                &format!("document.querySelector('{card}').dataset.status === 'done'"),
            )
            .await;
        // The answer laid out and painted: its shifts, if any, observed.
        let done = browser
            .eval(&format!(
                "{LAID_OUT_HEIGHT}\
                 const card = document.querySelector('{card}');\
                 const height = await laidOutHeight(card);\
                 await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));\
                 return [card.querySelector('.preview').textContent, height,\
                         window.shifts, window.bannerShown, card.querySelector('h3').textContent];"
            ))
            .await;
        assert_eq!(
            pending[0],
            json!(body),
            "{screen:?}: the pending card shows the note"
        );
        assert_eq!(
            pending[2],
            json!("AI waiting"),
            "{screen:?}: said in the meta line"
        );
        assert_eq!(
            pending[3],
            json!("pending"),
            "{screen:?}: measured before the answer"
        );
        assert_eq!(done[0], pending[0], "{screen:?}: the same text when done");
        assert_eq!(done[1], pending[1], "{screen:?}: the card kept its height");
        assert_eq!(
            done[2].as_f64(),
            Some(0.0),
            "{screen:?}: cumulative layout shift"
        );
        assert_eq!(
            done[3],
            json!(false),
            "{screen:?}: no banner for one capture"
        );
        assert!(
            done[4].as_str().unwrap().starts_with("About:"),
            "{screen:?}: the AI's title: {}",
            done[4]
        );
    }
    // The rule: the pending line speaks of a retry, a slow note or a backlog (from 10
    // notes until none waits), never of a capture or two.
    let rule = browser
        .eval(&format!(
            "const {{ pendingLine }} = await import({});\
             const line = (pending, retrying, slow, backlog) =>\
               pendingLine({{ pending, retrying, slow, backlog }});\
             return [line(1, false, 0, false), line(3, true, 0, false), line(1, false, 1, false),\
                     line(10, false, 0, false), line(4, false, 0, true), line(0, false, 0, true)];",
            crate::harness::module("banners.js")
        ))
        .await;
    assert_eq!(
        rule,
        json!([
            { "shown": false, "backlog": false },
            { "shown": true, "backlog": false },
            { "shown": true, "backlog": false },
            { "shown": true, "backlog": true },
            { "shown": true, "backlog": true },
            { "shown": false, "backlog": false },
        ])
    );
    browser.close().await;
}

#[actix_rt::test]
async fn a_search_says_it_shows_the_first_hundred_and_brings_the_rest_on_scroll_on_both_screens() {
    let browser = start_with_notes(&[], 120).await;
    for screen in [Screen::Desktop, Screen::Phone] {
        browser.emulate(screen, Scheme::Light).await;
        browser.open_inbox().await;
        browser
            .wait_until(
                "the list",
                "document.querySelectorAll('#notes .note').length >= 50",
            )
            .await;
        browser.type_into("#search", "stored").await;
        browser
            .wait_until(
                "the first hundred hits",
                "document.querySelectorAll('#notes .note').length === 100 && \
                 document.querySelectorAll('#notes .note mark, #notes .note .found-by').length >= 100",
            )
            .await;
        browser.wait_visible("search-count").await;
        assert_eq!(
            browser.text("#search-count").await,
            "The first 100 matches. More load as you scroll.",
            "{screen:?}"
        );
        browser.assert_accessible(&format!("{screen:?}")).await;
        let first = browser
            .eval("return document.querySelector('#notes .note');")
            .await;
        browser
            .eval("document.getElementById('load-more').scrollIntoView();")
            .await;
        browser
            .wait_until(
                "every hit",
                "document.querySelectorAll('#notes .note').length === 120",
            )
            .await;
        assert_eq!(
            browser.text("#search-count").await,
            "120 matches",
            "{screen:?}"
        );
        assert_eq!(
            browser
                .eval("return document.querySelector('#notes .note');")
                .await,
            first,
            "{screen:?}: the cards already there stay"
        );
        assert!(!browser.is_shown("load-more").await, "{screen:?}");
    }
    // At the most the service answers at once (500), the list says more may match.
    let capped = browser
        .eval(&format!(
            "const {{ searchPage, searchLimit }} = await import({});\
             const hits = (n) => Array.from({{ length: n }}, (_, i) => ({{ id: String(i) }}));\
             const page = (n, shown) => {{ const p = searchPage(hits(n), shown);\
               return [p.notes.length, p.hasMore, p.capped]; }};\
             return [searchLimit(100), searchLimit(500), page(101, 100), page(37, 100),\
                     page(500, 500), page(450, 500)];",
            crate::harness::module("notes.js")
        ))
        .await;
    assert_eq!(
        capped,
        json!([
            101,
            500,
            [100, true, false],
            [37, false, false],
            [500, false, true],
            [450, false, false]
        ])
    );
    browser.close().await;
}

/// The id of the card holding the focus (and its outline), or why there is none.
async fn focused_card(browser: &Browser) -> String {
    let id = browser
        .eval(
            "const card = document.activeElement && document.activeElement.closest('#notes .note');\
             if (!card) return 'no card has the focus: ' + (document.activeElement || {}).tagName;\
             return card.classList.contains('selected') ? card.dataset.id : 'not outlined';",
        )
        .await;
    id.as_str().unwrap_or_default().to_string()
}

/// Presses `key`, then says which card has the focus once the page has settled on one.
async fn press_and_wait_on(browser: &Browser, key: &str, id: &str) {
    browser.press(key).await;
    browser
        .wait_until(
            &format!("{key:?} leaves the focus on {id}"),
            &format!(
                "document.activeElement && document.activeElement.closest(\"#notes .note[data-id='{id}'].selected\")"
            ),
        )
        .await;
}

#[actix_rt::test]
async fn keyboard_triage_keeps_its_place_through_trash_edit_a_clicked_note_and_a_tick() {
    let browser = start_with_notes(&[], 7).await;
    browser
        .api(
            "POST",
            "/api/notes",
            Some(json!({ "body": "Shopping\n- [ ] milk\n- [ ] eggs" })),
        )
        .await;
    for screen in [Screen::Desktop, Screen::Phone] {
        browser.emulate(screen, Scheme::Light).await;
        browser.open_inbox().await;
        browser
            .wait_until(
                "the notes listed",
                "document.querySelectorAll('#notes .note').length >= 7",
            )
            .await;
        let ids: Vec<String> = serde_json::from_value(
            browser
                .eval(
                    "return [...document.querySelectorAll('#notes .note')].map(c => c.dataset.id);",
                )
                .await,
        )
        .unwrap();
        // Out of the capture box, then down to the third card.
        browser.press("\u{E00C}").await;
        press_and_wait_on(&browser, "j", &ids[0]).await;
        press_and_wait_on(&browser, "j", &ids[1]).await;
        press_and_wait_on(&browser, "j", &ids[2]).await;

        // `#`: the next card takes the trashed one's place, and the focus.
        press_and_wait_on(&browser, "#", &ids[3]).await;
        assert_eq!(focused_card(&browser).await, ids[3], "{screen:?}");
        press_and_wait_on(&browser, "j", &ids[4]).await;

        // Esc in an edit: back on the card edited.
        browser.press("e").await;
        browser
            .wait_until(
                "the edit form",
                "document.activeElement && document.activeElement.name === 'body'",
            )
            .await;
        press_and_wait_on(&browser, "\u{E00C}", &ids[4]).await;
        assert_eq!(
            browser
                .eval("return document.querySelector('#notes form.edit') === null;")
                .await,
            json!(true),
            "{screen:?}: the form closed"
        );
        press_and_wait_on(&browser, "j", &ids[5]).await;

        // A clicked note, then Back: the place is the note clicked.
        browser
            .click(&format!("#notes .note[data-id='{}'] a.open", ids[1]))
            .await;
        browser.wait_visible("note-view").await;
        browser
            .wait_until(
                "the note shown",
                "document.activeElement && document.activeElement.closest('#note-detail')",
            )
            .await;
        press_and_wait_on(&browser, "\u{E00C}", &ids[1]).await;
        press_and_wait_on(&browser, "j", &ids[3]).await;

        // A tick in the open note, then Back: still on that note.
        press_and_wait_on(&browser, "k", &ids[1]).await;
        press_and_wait_on(&browser, "k", &ids[0]).await;
        browser.press("\u{E007}").await;
        browser
            .wait_until(
                "the checklist open",
                "document.querySelector('#note-detail .rendered input[type=checkbox]')",
            )
            .await;
        let before = browser
            .api("GET", &format!("/api/notes/{}", ids[0]), None)
            .await;
        browser
            .click("#note-detail .rendered input[type=checkbox]")
            .await;
        browser
            .wait_for_api("ticked", &format!("/api/notes/{}", ids[0]), |note| {
                note["body"] != before["body"]
            })
            .await;
        press_and_wait_on(&browser, "\u{E00C}", &ids[0]).await;
        press_and_wait_on(&browser, "j", &ids[1]).await;
    }
    browser.close().await;
}

#[actix_rt::test]
async fn a_card_shows_the_body_formatted_and_its_checklist_ticks_from_the_list_on_both_screens() {
    let browser = start(&[]).await;
    let body = "# Project Falcon\nKickoff with **Ana**, run `deploy.sh`, see \
                [the plan](https://example.org/plan)\n## Shopping\n- [ ] tomatoes\n- [x] basil\n- [ ] garlic";
    let note = browser
        .api("POST", "/api/notes", Some(json!({ "body": body })))
        .await;
    let id = note["id"].as_str().expect("captured").to_string();
    let hostile = browser
        .api(
            "POST",
            "/api/notes",
            Some(
                json!({ "body": "Careful\n<img src=x onerror=alert(1)> [x](javascript:alert(1)) \
                                   <script>alert(2)</script>" }),
            ),
        )
        .await;
    let hostile = hostile["id"].as_str().expect("captured").to_string();
    let done = browser
        .wait_for_api("done", &format!("/api/notes/{id}"), |note| {
            note["ai_status"] == "done"
        })
        .await;
    let card = format!("#notes li[data-id='{id}']");
    for (round, screen) in [Screen::Desktop, Screen::Phone].into_iter().enumerate() {
        browser.emulate(screen, Scheme::Light).await;
        browser.open_inbox().await;
        browser
            .wait_until(
                "the checklist on the card",
                &format!("document.querySelectorAll(\"{card} .preview input[type=checkbox]\").length === 3"),
            )
            .await;
        let shown = browser
            .eval(&format!(
                "const preview = document.querySelector(\"{card} .preview\");\
                 const size = (e) => getComputedStyle(e).fontSize;\
                 const heading = preview.querySelector('.heading');\
                 const title = document.querySelector(\"{card} h3\");\
                 return [title.textContent, preview.textContent.includes('Project Falcon'),\
                         preview.querySelectorAll('h1, h2, h3, h4, h5, h6').length,\
                         heading.textContent, size(heading.firstElementChild) === size(preview),\
                         preview.querySelector('strong:not(.heading strong)').textContent,\
                         preview.querySelector('code').textContent,\
                         getComputedStyle(preview.querySelector('code')).fontFamily.includes('mono'),\
                         [...preview.querySelectorAll('a')].map(a => [a.textContent, a.getAttribute('href')]),\
                         [...preview.querySelectorAll('input[type=checkbox]')].map(b => [b.checked, b.disabled, b.labels[0].textContent]),\
                         preview.textContent.includes('# ') || preview.textContent.includes('[ ]')];"
            ))
            .await;
        assert_eq!(
            shown,
            json!([
                // The note's own first heading is the card's title, said once.
                "Project Falcon",
                false,
                0,
                "Shopping",
                true,
                "Ana",
                "deploy.sh",
                true,
                [["the plan", "https://example.org/plan"]],
                [
                    [round == 1, false, "tomatoes"],
                    [true, false, "basil"],
                    [false, false, "garlic"]
                ],
                false
            ]),
            "{screen:?}"
        );
        // Nothing of the note's own markup is markup on the page.
        let safe = browser
            .eval(&format!(
                "const preview = document.querySelector(\"#notes li[data-id='{hostile}'] .preview\");\
                 return [preview.querySelectorAll('img, script, a, b').length,\
                         preview.textContent.includes('<img src=x onerror=alert(1)>'),\
                         preview.textContent.includes('[x](javascript:alert(1))')];"
            ))
            .await;
        assert_eq!(safe, json!([0, true, true]), "{screen:?}");
        browser.assert_accessible(&format!("{screen:?}")).await;

        // Ticked (or unticked) from the card: the body's marker changes, the AI's
        // answer stays, and the focus stays on the box.
        browser
            .click(&format!("{card} .preview input[data-task='0']"))
            .await;
        let ticked = browser
            .wait_for_api("ticked", &format!("/api/notes/{id}"), |note| {
                note["body"]
                    .as_str()
                    .unwrap_or_default()
                    .contains(if round == 0 {
                        "- [x] tomatoes"
                    } else {
                        "- [ ] tomatoes"
                    })
            })
            .await;
        assert_eq!(ticked["title"], done["title"], "{screen:?}");
        assert_eq!(ticked["ai_status"], "done", "{screen:?}");
        browser
            .wait_until(
                "the card shows the tick, the focus on its box",
                &format!(
                    "document.querySelector(\"{card} input[data-task='0']\").checked === {} && \
                     document.activeElement === document.querySelector(\"{card} input[data-task='0']\")",
                    round == 0
                ),
            )
            .await;
    }
    // Where the page could count items unlike the service (a code block, a quote,
    // HTML), the boxes only show.
    let rule = browser
        .eval(&format!(
            "const {{ tickable }} = await import({});\
             return [tickable('Shopping\\n- [ ] milk\\n  - [ ] oat'),\
                     tickable('- [ ] milk\\n```\\n- [ ] not an item\\n```'),\
                     tickable('> - [ ] quoted'), tickable('<div>\\n- [ ] x\\n</div>'),\
                     tickable('    - [ ] code'), tickable('- [ ] a\\n    - [ ] nested'),\
                     tickable('text\\n2. [ ] ordered'), tickable('- [ ] ')];",
            crate::harness::module("preview.js")
        ))
        .await;
    assert_eq!(
        rule,
        json!([true, false, false, false, false, true, false, false])
    );
    browser.close().await;
}

/// Notes as a person keeps them (issue #28's realistic set): checklists, a meeting
/// note, links with a comment, a quote, an article, Korean, code, one-liners.
pub(crate) const REALISTIC: &[&str] = &[
    "Call mom",
    "Shopping\n- [ ] tomatoes\n- [ ] basil\n- [ ] garlic\n- [ ] olive oil\n- [ ] bread\n- [ ] milk\n- [x] eggs",
    "https://example.org/blog/sqlite-wal good explanation of checkpoints, read before the migration",
    "# Project Falcon kickoff\nAttendees: Ana, Ben, Chloe\n- scope: import from Keep\n- Ben owns the design\n- next meeting Thursday",
    "> The best way to have a good idea is to have lots of ideas.\n— Linus Pauling",
    "내일 오전 10시에 치과 예약. 보험 카드 챙기기",
    "```\ncargo test --test browser -- --nocapture\n```\nruns the page tests with their output",
    "Idea: a weekly review every Sunday evening, 20 minutes, inbox to zero",
    "Book recommendations from Sam: The Overstory, Piranesi, A Psalm for the Wild-Built",
    "Renew the passport before March (takes 6 weeks)",
    "Long read on local-first software https://example.org/local-first \u{2014} the seven ideals, CRDTs, \
     and why the cloud should be a peer. Worth re-reading the part about offline edits and \
     conflicts before we design sync. The authors argue that the user should own the data and \
     that apps should keep working without a network; most of our notes app already does.",
    "Gift ideas for Jun: a good pen, the hiking map of Jeju, tea",
];

#[actix_rt::test]
async fn a_first_screen_shows_eight_realistic_notes_on_a_desktop_and_four_on_a_phone_each_said_once(
) {
    let browser = start(&[]).await;
    let mut bodies: Vec<&str> = Vec::new();
    while bodies.len() < 30 {
        bodies.extend(REALISTIC.iter().take(30 - bodies.len()));
    }
    for body in &bodies {
        browser
            .api("POST", "/api/notes", Some(json!({ "body": body })))
            .await;
    }
    browser
        .wait_for_api("all done", "/api/status", |status| {
            status["counts"]["pending"] == 0
        })
        .await;
    let mut seen = Vec::new();
    for screen in [Screen::Desktop, Screen::Phone] {
        browser.emulate(screen, Scheme::Light).await;
        browser.open_inbox().await;
        browser
            .wait_until(
                "the notes listed",
                "document.querySelectorAll('#notes .note').length === 30",
            )
            .await;
        // Whole cards inside the first screen, before any scrolling.
        let whole = browser
            .eval(
                "return [...document.querySelectorAll('#notes .note')]\
                   .filter(c => c.getBoundingClientRect().bottom <= innerHeight).length;",
            )
            .await;
        seen.push(whole.as_u64().unwrap_or_default());
        // No card says its words twice: a one-line note is its heading alone, a note's
        // own heading is not said again under it.
        let twice = browser
            .eval(
                "return [...document.querySelectorAll('#notes .note')].filter((c) => {\
                   const heading = c.querySelector('h3').textContent.trim();\
                   const preview = c.querySelector('.preview');\
                   return preview && preview.textContent.trim().startsWith(heading);\
                 }).map((c) => c.querySelector('h3').textContent);",
            )
            .await;
        assert_eq!(twice, json!([]), "{screen:?}: said twice");
        let call_mom = browser
            .eval(
                "const card = [...document.querySelectorAll('#notes .note')]\
                   .find((c) => c.querySelector('h3').textContent === 'Call mom');\
                 return card ? [card.dataset.status, card.querySelector('.preview') === null] : null;",
            )
            .await;
        assert_eq!(call_mom, json!(["done", true]), "{screen:?}");
        // Every card as it is when scrolled to: a card off screen is not laid out
        // (content-visibility), its placeholder smaller than its contents, which the
        // scan would take for overlapping targets.
        // (A style of the card's own: the page's CSP refuses a <style> put in.)
        browser
            .eval(
                "for (const card of document.querySelectorAll('#notes .note')) card.style.contentVisibility = 'visible';",
            )
            .await;
        let violations = browser.accessibility_violations().await;
        assert!(violations.is_empty(), "{screen:?}: {violations:?}");
        browser
            .eval("for (const card of document.querySelectorAll('#notes .note')) card.style.contentVisibility = '';")
            .await;
    }
    eprintln!(
        "notes per first screen: desktop {}, phone {}",
        seen[0], seen[1]
    );
    assert!(
        seen[0] >= 8,
        "desktop: {} notes on the first screen",
        seen[0]
    );
    assert!(seen[1] >= 4, "phone: {} notes on the first screen", seen[1]);
    // The rule, from the body (and a title the person set) alone: the AI's answer
    // changes a heading's words, never a card's shape.
    let rule = browser
        .eval(&format!(
            "const {{ cardHeading }} = await import({});\
             const shape = (body, title, mine) => {{\
               const h = cardHeading({{ body, title, title_set_by_user: Boolean(mine) }});\
               return [h.kind, h.text, h.provisional, h.preview]; }};\
             return [shape('Call mom', null), shape('Call mom', 'Call Mom'),\
                     shape('see https://example.org', 'A link'), shape('# Falcon\\n- scope', 'About Falcon'),\
                     shape('# Falcon', null), shape('milk\\neggs', null), shape('milk\\neggs', 'Shopping'),\
                     shape('Long enough first line that it reads as a sentence, not a title at all\\nmore', null),\
                     shape('Call mom', 'Family', true), shape('x'.repeat(81), null)];",
            crate::harness::module("card.js")
        ))
        .await;
    assert_eq!(
        rule,
        json!([
            ["whole", "Call mom", false, null],
            ["whole", "Call mom", false, null],
            ["titled", "A link", false, "see https://example.org"],
            ["own", "Falcon", false, "- scope"],
            ["own", "Falcon", false, null],
            ["own", "milk", false, "eggs"],
            ["own", "milk", false, "eggs"],
            [
                "titled",
                "Long enough first line that it reads as a sentence, not a title at all",
                true,
                "Long enough first line that it reads as a sentence, not a title at all\nmore"
            ],
            ["own", "Family", false, "Call mom"],
            ["titled", "x".repeat(81), true, "x".repeat(81)],
        ])
    );
    browser.close().await;
}
