//! The page a note-app user would choose (issue #16): compact notes and one note at
//! its own address, bodies rendered safely, plain words with the detail behind a
//! toggle, the capture box first, the keyboard, dark mode, Korean, the address, the
//! stats view, and an accessibility scan, on a desktop and a phone screen.

use serde_json::{json, Value};

use crate::fake_ollama::Reply;
use crate::harness::{start, Browser, Scheme, Screen};

/// Captures through the API and returns the note's id.
async fn capture(browser: &Browser, body: &str) -> String {
    let note = browser
        .api("POST", "/api/notes", Some(json!({ "body": body })))
        .await;
    note["id"].as_str().expect("captured").to_string()
}

async fn wait_for_status(browser: &Browser, id: &str, status: &str) {
    let path = format!("/api/notes/{id}");
    browser
        .wait_for_api(&format!("the note is {status}"), &path, |note| {
            note["ai_status"] == status
        })
        .await;
}

/// What [`every_banner`] needs of the service: expiry on (the person said yes), after
/// 0 days, so every note is past it.
const EVERY_BANNER: [(&str, &str); 2] = [
    ("INKLING_EXPIRY__CHOICE", "on"),
    ("INKLING_EXPIRY__DAYS", "0"),
];

/// Every state a banner can show at once (start the service with [`EVERY_BANNER`]): a
/// note failed, one waiting, notes past `expiry.days` (two imported from Markdown files
/// last changed 45 days ago among them), and the model missing.
async fn every_banner(browser: &Browser) {
    let old = (chrono::Utc::now() - chrono::Duration::days(45)).to_rfc3339();
    let files: Vec<_> = [
        ("dentist.md", "Call the dentist about the crown"),
        (
            "shed.md",
            "Ideas for the garden shed: a window on the south side, shelves for the pots",
        ),
    ]
    .iter()
    .map(|(name, text)| json!({ "name": name, "text": text, "modified_at": old }))
    .collect();
    browser
        .api(
            "POST",
            "/api/notes/import",
            Some(json!({ "markdown": files })),
        )
        .await;
    browser
        .wait_for_api("the imported notes done", "/api/status", |status| {
            status["counts"]["pending"] == 0
        })
        .await;
    browser.fake.push(&[Reply::WrongSchema; 3]);
    let failed = capture(browser, "Buy stamps at the post office before Friday").await;
    wait_for_status(browser, &failed, "failed").await;
    browser.fake.set_default(Reply::Ok);
    let done = capture(
        browser,
        "Errands for the weekend\n- [ ] stamps\n- [x] milk\n\nThe [map](https://example.org/map) and `the code`",
    )
    .await;
    wait_for_status(browser, &done, "done").await;
    browser.fake.set_models(&[]);
    browser
        .api("POST", "/api/ollama/recheck", Some(json!({})))
        .await;
    capture(browser, "waiting for the model").await;
}

/// The bottom of an element, and the screen's height.
async fn bottom_and_screen(browser: &Browser, id: &str) -> (f64, f64) {
    let found = browser
        .eval(&format!(
            "return [document.getElementById('{id}').getBoundingClientRect().bottom, window.innerHeight];"
        ))
        .await;
    (found[0].as_f64().unwrap(), found[1].as_f64().unwrap())
}

async fn no_sideways_scrolling(browser: &Browser, what: &str) {
    let widths = browser
        .eval("return [document.documentElement.scrollWidth, window.innerWidth];")
        .await;
    assert!(
        widths[0].as_f64() <= widths[1].as_f64(),
        "{what} scrolls sideways: {widths}"
    );
}

/// Each view in one screen and scheme: scanned, in plain words, nothing wider than
/// the screen, and the capture box in the first screen whatever the banners say.
/// `shot`: the README screenshot taken of the notes list (with `INKLING_SCREENSHOTS`).
async fn try_every_view(browser: &Browser, screen: Screen, scheme: Scheme, shot: Option<&str>) {
    let what = format!("{screen:?} {scheme:?}");
    browser.emulate(screen, scheme).await;
    browser.open_inbox().await;
    for id in ["provider-banner", "failed-banner", "expiry-banner"] {
        browser.wait_visible(id).await;
    }
    browser
        .wait_until(
            "the notes are listed",
            "document.querySelectorAll('#notes .note').length === 5",
        )
        .await;
    let (bottom, height) = bottom_and_screen(browser, "capture").await;
    assert!(
        bottom <= height,
        "{what}: the capture box ends at {bottom} of {height}"
    );
    // One line a banner (on a phone the buttons may wrap below the words).
    let heights = browser
        .eval("return [...document.querySelectorAll('#banners .banner')].filter(b => !b.hidden).map(b => [b.id, b.getBoundingClientRect().height]);")
        .await;
    let limit = if screen == Screen::Phone { 130.0 } else { 50.0 };
    for banner in heights.as_array().unwrap() {
        assert!(
            banner[1].as_f64().unwrap() <= limit,
            "{what}: a banner is too tall: {heights}"
        );
    }
    browser.assert_plain_words().await;
    no_sideways_scrolling(browser, &format!("{what} notes")).await;
    browser.assert_accessible(&format!("{what} notes")).await;
    if let Some(file) = shot {
        browser.screenshot(file).await;
    }

    browser.click("#notes .note[data-status=done] a.open").await;
    browser.wait_visible("note-view").await;
    browser
        .wait_until(
            "the body rendered",
            "document.querySelector('#note-detail .rendered li')",
        )
        .await;
    browser.assert_plain_words().await;
    no_sideways_scrolling(browser, &format!("{what} one note")).await;
    browser.assert_accessible(&format!("{what} one note")).await;

    for view in ["today", "stats", "tags", "trash"] {
        browser
            .click(&format!("#views button[data-view={view}]"))
            .await;
        browser.wait_visible(&format!("{view}-view")).await;
        if view == "stats" {
            browser
                .wait_until(
                    "the chart drawn",
                    "document.querySelectorAll('#chart text').length > 3",
                )
                .await;
            browser
                .eval("document.getElementById('diagnostics').open = true; return true;")
                .await;
        }
        no_sideways_scrolling(browser, &format!("{what} {view}")).await;
        browser.assert_accessible(&format!("{what} {view}")).await;
    }
    browser.click("#help-open").await;
    browser
        .wait_until("the help open", "document.getElementById('help').open")
        .await;
    browser.assert_accessible(&format!("{what} help")).await;
    browser.press("\u{E00C}").await; // Escape
    browser
        .wait_until("the help closed", "!document.getElementById('help').open")
        .await;
}

#[actix_rt::test]
async fn every_view_passes_the_accessibility_scan_in_plain_words_on_both_screens_light_and_dark() {
    let browser = start(&EVERY_BANNER).await;
    every_banner(&browser).await;
    try_every_view(
        &browser,
        Screen::Desktop,
        Scheme::Light,
        Some("inbox-en.png"),
    )
    .await;
    try_every_view(
        &browser,
        Screen::Phone,
        Scheme::Light,
        Some("inbox-phone.png"),
    )
    .await;
    try_every_view(
        &browser,
        Screen::Desktop,
        Scheme::Dark,
        Some("inbox-dark.png"),
    )
    .await;
    try_every_view(&browser, Screen::Phone, Scheme::Dark, None).await;
    // Dark is dark: the page's background, not the light one.
    let background = browser
        .eval("return getComputedStyle(document.body).backgroundColor;")
        .await;
    assert_eq!(background, json!("rgb(20, 23, 28)"));
    browser.close().await;
}

#[actix_rt::test]
async fn the_korean_page_is_translated_breaks_between_words_and_passes_the_scan() {
    let browser = start(&[EVERY_BANNER[0], EVERY_BANNER[1], ("INKLING_LOCALE", "ko")]).await;
    every_banner(&browser).await;
    try_every_view(
        &browser,
        Screen::Desktop,
        Scheme::Light,
        Some("inbox-ko.png"),
    )
    .await;
    try_every_view(&browser, Screen::Phone, Scheme::Dark, None).await;
    browser.open_inbox().await;
    browser.wait_visible("failed-banner").await;
    assert_eq!(
        browser
            .eval("return getComputedStyle(document.body).wordBreak;")
            .await,
        json!("keep-all")
    );
    // No English left where a person reads (the model's name and commands aside).
    let text = browser.plain_text().await;
    for english in [
        "AI failed",
        "Retry",
        "notes",
        "Details",
        "Ollama is",
        "Search",
    ] {
        assert!(
            !text.contains(english),
            "{english:?} on the Korean page:\n{text}"
        );
    }
    assert!(browser
        .text("#failed-banner .text")
        .await
        .contains("노트 1개"));
    // The aria-labels too.
    let labels = browser
        .eval("return [...document.querySelectorAll('[aria-label]')].map(e => e.getAttribute('aria-label')).join(' | ');")
        .await;
    assert!(!labels.as_str().unwrap().contains("Move "), "{labels}");
    browser.close().await;
}

#[actix_rt::test]
async fn a_note_opens_at_its_own_address_rendered_with_its_ai_and_back_returns_to_the_list() {
    let browser = start(&[]).await;
    browser.fake.push(&[Reply::WrongSchema; 3]);
    let failed = capture(&browser, "the AI cannot read this one").await;
    wait_for_status(&browser, &failed, "failed").await;
    let id = capture(
        &browser,
        "Errands\n- [ ] stamps\n- [x] milk\n\nSee [the map](https://example.org/map), `code` and <b>raw</b>",
    )
    .await;
    wait_for_status(&browser, &id, "done").await;
    // On a phone, in the dark (the desktop and light ones are in the scan above).
    browser.emulate(Screen::Phone, Scheme::Dark).await;
    browser.open_inbox().await;
    browser
        .wait_until(
            "both listed",
            "document.querySelectorAll('#notes .note').length === 2",
        )
        .await;

    // A card is compact: no "done" badge, the body clamped to a few lines.
    let card = format!("#notes li[data-id='{id}']");
    assert_eq!(
        browser
            .eval(&format!(
                "return document.querySelector(\"{card} .badge\") === null;"
            ))
            .await,
        json!(true),
        "a done note has no badge"
    );
    browser.click(&format!("{card} a.open")).await;
    browser.wait_visible("note-view").await;
    let address = browser.eval("return location.search;").await;
    assert_eq!(address, json!(format!("?note={id}")));
    browser
        .wait_until(
            "rendered",
            "document.querySelector('#note-detail .rendered a')",
        )
        .await;
    let link = browser
        .eval("const a = document.querySelector('#note-detail .rendered a'); return [a.href, a.rel, a.target];")
        .await;
    assert_eq!(
        link,
        json!(["https://example.org/map", "noopener noreferrer", "_blank"])
    );
    let code = browser
        .eval("return getComputedStyle(document.querySelector('#note-detail .rendered code')).fontFamily;")
        .await;
    assert!(code.as_str().unwrap().contains("monospace"), "{code}");
    let raw = browser
        .eval("return [document.querySelector('#note-detail .rendered b'), document.querySelector('#note-detail .rendered').textContent.includes('<b>raw</b>')];")
        .await;
    assert_eq!(raw, json!([null, true]), "raw HTML is shown as text");
    let ai = browser.text("#note-detail .ai-section").await;
    assert!(ai.contains("by the AI"), "{ai}");

    // Ticking a checklist item is an edit of the body.
    browser
        .click("#note-detail .rendered input[type=checkbox]")
        .await;
    let note = browser
        .wait_for_api("the item ticked", &format!("/api/notes/{id}"), |note| {
            note["body"]
                .as_str()
                .unwrap_or_default()
                .contains("- [x] stamps")
        })
        .await;
    assert!(
        note["body"]
            .as_str()
            .unwrap()
            .starts_with("Errands\n- [x] stamps\n- [x] milk"),
        "{note}"
    );

    // Back returns to the list; Forward and a reload open the note again.
    browser.client.back().await.unwrap();
    browser.wait_visible("inbox-view").await;
    assert_eq!(browser.eval("return location.search;").await, json!(""));
    browser.client.forward().await.unwrap();
    browser.wait_visible("note-view").await;
    browser.client.refresh().await.unwrap();
    browser.wait_visible("note-view").await;
    browser
        .wait_until(
            "the note again",
            "document.querySelector('#note-detail h2')",
        )
        .await;

    // A failed note: plain words, the stored error behind Details.
    browser
        .client
        .goto(&format!("{}/?note={failed}", browser.app_url))
        .await
        .unwrap();
    browser
        .wait_until(
            "the failed note",
            "document.querySelector('#note-detail .ai-error')",
        )
        .await;
    let said = browser.text("#note-detail .ai-error").await;
    assert_eq!(
        said,
        "The AI gave up on this note. The AI's answer couldn't be used (3 tries). Your note is safe."
    );
    browser.assert_plain_words().await;
    let detail = browser
        .eval("return document.querySelector('#note-detail details .detail').textContent;")
        .await;
    assert!(detail.as_str().unwrap().starts_with("schema:"), "{detail}");
    browser.click("#back").await;
    browser.wait_visible("inbox-view").await;
    browser.close().await;
}

#[actix_rt::test]
async fn the_filter_and_the_search_live_in_the_address_so_back_and_reload_keep_them() {
    let browser = start(&[]).await;
    let tagged = capture(&browser, "soup for Sunday").await;
    wait_for_status(&browser, &tagged, "done").await;
    browser.emulate(Screen::Phone, Scheme::Light).await;
    browser.open_inbox().await;
    browser
        .wait_until(
            "listed",
            "document.querySelectorAll('#notes .note').length === 1",
        )
        .await;
    browser.click("#notes li button.tag").await;
    browser.wait_visible("filter-chip").await;
    assert_eq!(
        browser.eval("return location.search;").await,
        json!("?tag=fake")
    );
    browser.client.refresh().await.unwrap();
    browser.wait_visible("filter-chip").await;
    assert_eq!(browser.text("#filter-chip .text").await, "Tag: #fake");

    // Saved under a filter that hides it: said, with the way to it.
    browser.fake.set_default(Reply::Hang);
    browser.type_into("#capture-body", "not tagged yet").await;
    browser.save_with_ctrl_enter().await;
    browser.wait_visible("saved-hidden").await;
    assert_eq!(
        browser.text("#saved-hidden .text").await,
        "Saved — not shown under #fake."
    );
    browser.click("#show-saved").await;
    browser
        .wait_until(
            "the new note shown",
            "document.querySelectorAll('#notes .note').length === 2",
        )
        .await;
    assert!(!browser.is_shown("filter-chip").await);

    browser.type_into("#search", "soup").await;
    browser
        .wait_until(
            "the address has the search",
            "location.search === '?q=soup'",
        )
        .await;
    browser.client.refresh().await.unwrap();
    browser
        .wait_until(
            "the search kept",
            "document.getElementById('search').value === 'soup' && document.querySelectorAll('#notes .note').length === 1",
        )
        .await;
    browser.client.back().await.unwrap();
    browser
        .wait_until("Back to the tag", "location.search === '?tag=fake'")
        .await;
    browser.wait_visible("filter-chip").await;
    browser.close().await;
}

#[actix_rt::test]
async fn when_the_service_stops_the_page_says_so_keeps_the_draft_and_recovers_by_itself() {
    let mut browser = start(&[]).await;
    browser.emulate(Screen::Desktop, Scheme::Dark).await;
    browser.open_inbox().await;
    browser.stop_service().await;
    browser.wait_visible("offline-banner").await;
    assert_eq!(
        browser.text("#offline-banner").await,
        "inkling isn't running — your draft is kept. This page reconnects by itself when it's back."
    );
    browser
        .type_into("#capture-body", "a thought while it is down")
        .await;
    browser.save_with_ctrl_enter().await;
    browser.wait_visible("capture-error").await;
    assert_eq!(
        browser.text("#capture-error .text").await,
        "Not saved yet: inkling isn't running. Your text is kept here and saved as soon as it's back."
    );
    browser.assert_plain_words().await;
    assert_eq!(
        browser
            .eval("return [document.getElementById('capture-body').value, localStorage.getItem('inkling.draft')];")
            .await,
        json!(["a thought while it is down", "a thought while it is down"])
    );

    browser.start_service_again().await;
    browser
        .wait_until(
            "back online",
            "document.getElementById('offline-banner').hidden",
        )
        .await;
    // Saved by itself once the service is back; Save pressed meanwhile saves it once.
    browser.save_with_ctrl_enter().await;
    browser
        .wait_until(
            "saved",
            "document.querySelectorAll('#notes .note').length === 1",
        )
        .await;
    let notes = browser.api("GET", "/api/notes", None).await;
    assert_eq!(notes.as_array().unwrap().len(), 1, "{notes}");
    browser.close().await;
}

#[actix_rt::test]
async fn retry_says_what_it_retries_and_which_failed_again_and_a_banner_can_be_dismissed() {
    let browser = start(&[]).await;
    browser.fake.push(&[Reply::WrongSchema; 6]);
    for body in ["first thought", "second thought"] {
        let id = capture(&browser, body).await;
        wait_for_status(&browser, &id, "failed").await;
    }
    browser.open_inbox().await;
    browser.wait_visible("failed-banner").await;
    browser.fake.push(&[Reply::WrongSchema; 6]);
    let said = browser
        .eval("document.getElementById('retry').click(); return document.querySelector('#pending-banner .text').textContent;")
        .await;
    assert_eq!(said, json!("Retrying 2 notes…"));
    browser.wait_visible("failed-banner").await;
    browser
        .wait_until(
            "both failed again",
            "document.querySelector('#failed-banner .text').textContent === '2 notes failed again. They\\'re safe.'",
        )
        .await;

    // Dismissed, it stays away while it says the same, and comes back with news.
    browser.click("#failed-banner button.dismiss").await;
    assert!(!browser.is_shown("failed-banner").await);
    browser.fake.push(&[Reply::WrongSchema; 3]);
    let third = capture(&browser, "third thought").await;
    wait_for_status(&browser, &third, "failed").await;
    browser.wait_visible("failed-banner").await;
    assert_eq!(
        browser.text("#failed-banner .text").await,
        "3 notes failed again. They're safe."
    );
    browser.close().await;
}

async fn active(browser: &Browser) -> Value {
    browser
        .eval("const e = document.activeElement; return [e.id, e.className, e.closest('li') ? e.closest('li').dataset.id : null];")
        .await
}

#[actix_rt::test]
async fn the_keyboard_moves_opens_edits_and_trashes_notes() {
    let browser = start(&[]).await;
    browser
        .open_inbox_with_notes(&["oldest note", "middle note", "newest note"])
        .await;
    let ids = browser
        .eval("return [...document.querySelectorAll('#notes li')].map(li => li.dataset.id);")
        .await;
    assert_eq!(
        active(&browser).await[0],
        "capture-body",
        "the capture box first"
    );

    browser.press("\u{E00C}").await; // Escape leaves the box
    browser.press("j").await;
    assert_eq!(active(&browser).await[2], ids[0]);
    browser.press("jjk").await;
    assert_eq!(active(&browser).await[2], ids[1]);
    browser.press("\u{E007}").await; // Enter opens it
    browser.wait_visible("note-view").await;
    browser
        .wait_until(
            "the note open",
            &format!(
                "document.getElementById('note-detail').dataset.id === {}",
                ids[1]
            ),
        )
        .await;
    browser.press("e").await;
    browser
        .wait_until(
            "the edit form",
            "document.querySelector('#note-detail form.edit')",
        )
        .await;
    browser.press("\u{E00C}").await; // Escape closes the form
    browser
        .wait_until(
            "the form gone",
            "!document.querySelector('#note-detail form.edit')",
        )
        .await;
    browser.press("\u{E00C}").await; // Escape again: back to the list
    browser.wait_visible("inbox-view").await;
    assert_eq!(
        active(&browser).await[2],
        ids[1],
        "the focus comes back to its card"
    );

    browser.press("#").await;
    browser.wait_visible("undo-toast").await;
    browser
        .wait_until(
            "trashed",
            "document.querySelectorAll('#notes li').length === 2",
        )
        .await;
    browser.press("/").await;
    assert_eq!(active(&browser).await[0], "search");
    browser.press("\u{E00C}").await;
    browser.click("#notes li a.open").await;
    browser.wait_visible("note-view").await;
    browser.press("n").await;
    browser.wait_visible("inbox-view").await;
    assert_eq!(active(&browser).await[0], "capture-body");

    // Buttons say which note they act on.
    let label = browser
        .eval("return document.querySelector('#notes li button.trash').getAttribute('aria-label');")
        .await;
    assert!(label.as_str().unwrap().starts_with("Move “"), "{label}");
    browser.close().await;
}

#[actix_rt::test]
async fn a_live_change_patches_only_its_card_and_a_note_not_loaded_is_left_alone() {
    let browser = crate::harness::start_with_notes(&[], 120).await;
    browser.open_inbox().await;
    browser
        .wait_until(
            "a page",
            "document.querySelectorAll('#notes li').length === 50",
        )
        .await;
    // The live feed's connection loads the list again: after that, not before.
    browser
        .wait_until(
            "the live feed",
            "document.documentElement.dataset.live === 'connected'",
        )
        .await;
    // Every card's contents marked: a card filled again loses its mark (the card
    // itself stays the same element, in its place).
    browser
        .eval(
            "document.querySelectorAll('#notes li').forEach(li => { li.firstElementChild.marked = true; li.same = true; }); return true;",
        )
        .await;
    let notes = browser.api("GET", "/api/notes?limit=120", None).await;
    let loaded = notes[3]["id"].as_str().unwrap().to_string();
    let not_loaded = notes[100]["id"].as_str().unwrap().to_string();
    for id in [&loaded, &not_loaded] {
        let client = awc::Client::new();
        let mut reply = client
            .patch(format!("{}/api/notes/{id}", browser.app_url))
            .bearer_auth(&browser.token)
            .send_json(&json!({ "tags": ["changed"] }))
            .await
            .unwrap();
        assert_eq!(reply.status(), 200, "{:?}", reply.body().await);
    }
    browser
        .wait_until(
            "the loaded note's card shows its change",
            &format!("document.querySelector(\"#notes li[data-id='{loaded}'] button.tag\")?.textContent === '#changed'"),
        )
        .await;
    let remade = browser
        .eval("return [...document.querySelectorAll('#notes li')].filter(li => !li.firstElementChild.marked).map(li => li.dataset.id);")
        .await;
    assert_eq!(
        remade,
        json!([loaded]),
        "only the changed card is made again"
    );
    assert_eq!(
        browser
            .eval(&format!("return [document.querySelectorAll('#notes li').length, document.querySelector(\"#notes li[data-id='{not_loaded}']\")];"))
            .await,
        json!([50, null]),
        "a note past the loaded pages stays out"
    );
    assert_eq!(
        browser
            .eval("return [...document.querySelectorAll('#notes li')].every(li => li.same);")
            .await,
        json!(true),
        "every card the same element"
    );
    browser.close().await;
}
