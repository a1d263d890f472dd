//! The page as a daily notes app, its details (issue #28, "Also seen"): Korean notes
//! break between words in the English page, "Check again" says what it found, an
//! error about the service being unreachable goes when it is back, the open note's
//! hierarchy (title, summary, body), "edited" only for a person's edit, "Show more"
//! only where there is more, the Tags view a list to read, not a wall of forms, the
//! stats' week that agrees with the notes, and the chart's labels whole whatever the
//! counts.

use serde_json::{json, Value};

use crate::harness::{start, Browser, Scheme, Screen};

/// The places in `css`'s text where a line ends inside a Korean word (between two
/// Hangul syllables with no space), and how many lines the text takes.
async fn korean_words_split(browser: &Browser, css: &str) -> (Vec<String>, usize) {
    let found = browser
        .eval(&format!(
            "const element = document.querySelector(\"{css}\");\
             const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);\
             const splits = []; const tops = new Set(); let node;\
             while ((node = walker.nextNode())) {{\
               const text = node.data; let before = null;\
               for (let i = 0; i < text.length; i += 1) {{\
                 const range = document.createRange();\
                 range.setStart(node, i); range.setEnd(node, i + 1);\
                 const rect = range.getClientRects()[0];\
                 if (!rect || /\\s/.test(text[i])) {{ before = null; continue; }}\
                 tops.add(Math.round(rect.top));\
                 const hangul = /[\\uac00-\\ud7af]/;\
                 if (before !== null && Math.abs(rect.top - before) > 2 \
                     && hangul.test(text[i]) && hangul.test(text[i - 1])) \
                   splits.push(text.slice(Math.max(0, i - 3), i) + '|' + text.slice(i, i + 3));\
                 before = rect.top;\
               }}\
             }}\
             return [splits, tops.size];"
        ))
        .await;
    let splits = found[0]
        .as_array()
        .expect("a list")
        .iter()
        .map(|s| s.as_str().unwrap_or_default().to_string())
        .collect();
    (splits, found[1].as_u64().unwrap_or(0) as usize)
}

async fn open_note(browser: &Browser, id: &str) {
    browser
        .wait_until(
            "listed",
            &format!("document.querySelector(\"#notes li[data-id='{id}'] a.open\")"),
        )
        .await;
    browser
        .click(&format!("#notes li[data-id='{id}'] a.open"))
        .await;
    browser.wait_visible("note-view").await;
    browser
        .wait_until(
            "the note rendered",
            "document.querySelector('#note-detail .rendered')",
        )
        .await;
}

async fn capture(browser: &Browser, body: &str) -> String {
    let note = browser
        .api("POST", "/api/notes", Some(json!({ "body": body })))
        .await;
    note["id"].as_str().expect("captured").to_string()
}

#[actix_rt::test]
async fn a_korean_note_breaks_between_words_in_the_english_page_and_a_long_address_still_fits() {
    let browser = start(&[]).await;
    let korean = "다음 주 회의에서 새로운 프로젝트 일정과 예산 계획을 팀원들과 공유하기로 \
                  했습니다. 준비해야 할 자료는 지난 분기 보고서와 고객 설문 결과입니다.";
    let id = capture(&browser, korean).await;
    let address = format!("https://example.org/{}", "longpath".repeat(12));
    let english = format!("Read this later {address} before the meeting");
    let english_id = capture(&browser, &english).await;
    for screen in [Screen::Desktop, Screen::Phone] {
        browser.emulate(screen, Scheme::Light).await;
        browser.open_inbox().await;
        let card = format!("#notes li[data-id='{id}'] .preview");
        browser
            .wait_until("the card", &format!("document.querySelector(\"{card}\")"))
            .await;
        assert_eq!(
            browser
                .eval(&format!(
                    "return [document.documentElement.lang, document.querySelector(\"{card}\").lang];"
                ))
                .await,
            json!(["en", "ko"]),
            "{screen:?}: the page is English, the note's text Korean"
        );
        let (splits, lines) = korean_words_split(&browser, &card).await;
        assert!(
            lines > 1,
            "{screen:?}: the card's text wraps ({lines} lines)"
        );
        assert!(
            splits.is_empty(),
            "{screen:?}: card words split: {splits:?}"
        );

        // The English note: no `lang` of its own, and its long address breaks to fit.
        let english_card = format!("#notes li[data-id='{english_id}'] .preview");
        assert_eq!(
            browser
                .eval(&format!(
                    "const e = document.querySelector(\"{english_card}\");\
                     return [e.lang, e.scrollWidth <= e.clientWidth];"
                ))
                .await,
            json!(["", true]),
            "{screen:?}"
        );

        open_note(&browser, &id).await;
        let (splits, lines) = korean_words_split(&browser, "#note-detail .rendered").await;
        assert!(lines > 1, "{screen:?}: the open note's text wraps");
        assert!(
            splits.is_empty(),
            "{screen:?}: open note words split: {splits:?}"
        );
        browser.assert_accessible(&format!("{screen:?}")).await;
    }
    browser.close().await;
}

#[actix_rt::test]
async fn check_again_says_it_is_checking_and_then_what_it_found() {
    // Nothing listens where Ollama should be.
    let url = format!("http://127.0.0.1:{}", crate::ports::free_port());
    let browser = start(&[("INKLING_OLLAMA__URL", url.as_str())]).await;
    browser
        .api("POST", "/api/provider/recheck", Some(json!({})))
        .await;
    for screen in [Screen::Desktop, Screen::Phone] {
        browser.emulate(screen, Scheme::Light).await;
        browser.open_inbox().await;
        browser.wait_visible("provider-banner").await;
        browser.wait_visible("recheck").await;
        assert_eq!(browser.text("#recheck").await, "Check again");
        // The check's answer is held until the test lets it through, so the state
        // while it is under way can be seen.
        browser
            .eval(
                "const fetched = window.fetch;\
                 window.releaseCheck = null;\
                 window.fetch = async (path, init) => {\
                   if (String(path).includes('/api/provider/recheck')) \
                     await new Promise((go) => (window.releaseCheck = go));\
                   return fetched(path, init);\
                 };",
            )
            .await;
        browser.click("#recheck").await;
        browser
            .wait_until("the check under way", "window.releaseCheck !== null")
            .await;
        assert_eq!(
            browser
                .eval(
                    "const b = document.getElementById('recheck');\
                     return [b.textContent, b.getAttribute('aria-disabled'), \
                             document.activeElement === b];"
                )
                .await,
            json!(["Checking…", "true", true]),
            "{screen:?}"
        );
        browser.eval("window.releaseCheck();").await;
        browser
            .wait_until(
                "the check's answer said",
                "document.getElementById('recheck-result').getClientRects().length > 0",
            )
            .await;
        assert_eq!(
            browser.text("#recheck-result").await,
            "Still not answering — checked just now.",
            "{screen:?}"
        );
        assert_eq!(browser.text("#recheck").await, "Check again", "{screen:?}");
        browser.assert_accessible(&format!("{screen:?}")).await;
    }
    browser.close().await;
}

#[actix_rt::test]
async fn an_error_about_the_service_being_out_of_reach_goes_when_it_is_back() {
    let mut browser = start(&[]).await;
    let id = capture(&browser, "Plan the garden").await;
    for screen in [Screen::Desktop, Screen::Phone] {
        browser.emulate(screen, Scheme::Light).await;
        browser.open_inbox().await;
        let trash = format!("#notes li[data-id='{id}'] .actions .trash");
        browser
            .wait_until("listed", &format!("document.querySelector(\"{trash}\")"))
            .await;
        browser.stop_service().await;
        browser.wait_visible("offline-banner").await;
        // A button pressed while the service is away: its failure is said.
        browser
            .eval(&format!("document.querySelector(\"{trash}\").click();"))
            .await;
        browser.wait_visible("capture-error").await;
        assert_eq!(
            browser.text("#capture-error .text").await,
            "That didn't work: inkling isn't reachable or ran into a problem. Nothing was changed.",
            "{screen:?}"
        );

        browser.start_service_again().await;
        browser
            .wait_until(
                "back online",
                "document.getElementById('offline-banner').hidden",
            )
            .await;
        assert_eq!(
            browser
                .eval("return document.getElementById('capture-error').hidden;")
                .await,
            json!(true),
            "{screen:?}: the line about the service being out of reach went with it"
        );
    }
    // A refusal in the service's words is no connection problem: it stays.
    browser
        .eval(&format!(
            "const {{ guarded }} = await import({});\
             const {{ ApiFailure }} = await import({});\
             await guarded(async () => {{ throw new ApiFailure(409, 'not in the trash'); }})();",
            crate::harness::module("dom.js"),
            crate::harness::module("api.js")
        ))
        .await;
    browser.wait_visible("capture-error").await;
    browser.stop_service().await;
    browser.wait_visible("offline-banner").await;
    browser.start_service_again().await;
    browser
        .wait_until(
            "back online",
            "document.getElementById('offline-banner').hidden",
        )
        .await;
    assert_eq!(
        browser.text("#capture-error .text").await,
        "Nothing was changed: not in the trash"
    );
    browser.close().await;
}

#[actix_rt::test]
async fn the_open_note_has_its_title_biggest_and_once_and_its_summary_before_the_body() {
    let browser = start(&[]).await;
    let long_part = "We talked about where the sun falls in the afternoon and which beds \
                     dry out first. "
        .repeat(30);
    let body = format!(
        "# Garden plan\n\nDig the beds on Saturday.\n\n## Seeds\n\n{long_part}\n\n### Tools\n\nA spade."
    );
    let id = capture(&browser, &body).await;
    browser
        .wait_for_api("done", &format!("/api/notes/{id}"), |note| {
            note["ai_status"] == "done"
        })
        .await;
    browser
        .api(
            "PATCH",
            &format!("/api/notes/{id}"),
            Some(json!({ "title": "Garden plan" })),
        )
        .await;
    browser
        .wait_for_api("titled", &format!("/api/notes/{id}"), |note| {
            note["title"] == "Garden plan" && note["ai_status"] == "done"
        })
        .await;
    for screen in [Screen::Desktop, Screen::Phone] {
        browser.emulate(screen, Scheme::Light).await;
        browser.open_inbox().await;
        open_note(&browser, &id).await;
        let page: Value = browser
            .eval(
                "const detail = document.getElementById('note-detail');\
                 const title = detail.querySelector('h2');\
                 const size = (e) => parseFloat(getComputedStyle(e).fontSize);\
                 const headings = [...detail.querySelectorAll('.rendered :is(h1,h2,h3,h4,h5,h6)')];\
                 const saying = [...detail.querySelectorAll('*')]\
                   .filter((e) => e.children.length === 0 && e.textContent.includes('Garden plan'));\
                 const summary = detail.querySelector('.summary');\
                 const rendered = detail.querySelector('.rendered');\
                 return {\
                   title: title.textContent,\
                   bigger_headings: headings.filter((h) => size(h) >= size(title)).map((h) => h.textContent),\
                   headings: headings.map((h) => h.textContent),\
                   said: saying.length,\
                   summary: summary && summary.textContent,\
                   summary_first: Boolean(summary && \
                     (summary.compareDocumentPosition(rendered) & Node.DOCUMENT_POSITION_FOLLOWING)),\
                 };",
            )
            .await;
        assert_eq!(
            page,
            json!({
                "title": "Garden plan",
                "bigger_headings": [],
                "headings": ["Seeds", "Tools"],
                "said": 1,
                "summary": "A note the fake model read.",
                "summary_first": true,
            }),
            "{screen:?}"
        );
        // The heading is the title: where it came from is said under it.
        let when = browser.text("#note-detail h2 + .hint").await;
        assert!(when.contains("Title: set by you"), "{screen:?}: {when}");
        browser.assert_accessible(&format!("{screen:?}")).await;
    }
    browser.close().await;
}

#[actix_rt::test]
async fn show_more_is_offered_only_where_the_card_hides_some_of_the_note() {
    let browser = start(&[]).await;
    // Long in characters, one short line on the card: the address is not shown.
    let linked = format!(
        "See [the doc](https://example.org/{}) today.",
        "section/".repeat(40)
    );
    let short_id = capture(&browser, &linked).await;
    let long = "The meeting moved to Thursday, so the slides need the new numbers. ".repeat(12);
    let long_id = capture(&browser, &long).await;
    let state = |id: &str| {
        format!(
            "const card = document.querySelector(\"#notes li[data-id='{id}']\");\
             const more = card.querySelector('.show-more');\
             const preview = card.querySelector('.preview');\
             return [Boolean(more && more.getClientRects().length > 0), \
                     preview.scrollHeight > preview.clientHeight + 1, \
                     preview.getBoundingClientRect().height];"
        )
    };
    for screen in [Screen::Desktop, Screen::Phone] {
        browser.emulate(screen, Scheme::Light).await;
        browser.open_inbox().await;
        for id in [&short_id, &long_id] {
            browser
                .wait_until(
                    "listed",
                    &format!("document.querySelector(\"#notes li[data-id='{id}'] .preview\")"),
                )
                .await;
        }
        // One frame on: the cards are laid out and measured.
        browser
            .eval("await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));")
            .await;
        let short = browser.eval(&state(&short_id)).await;
        assert_eq!(
            (&short[0], &short[1]),
            (&json!(false), &json!(false)),
            "{screen:?}: nothing hidden, no Show more"
        );
        let before = browser.eval(&state(&long_id)).await;
        assert_eq!(
            (&before[0], &before[1]),
            (&json!(true), &json!(true)),
            "{screen:?}: the long note is cut and says so"
        );
        browser
            .click(&format!("#notes li[data-id='{long_id}'] .show-more"))
            .await;
        let after = browser.eval(&state(&long_id)).await;
        assert!(
            after[2].as_f64() > before[2].as_f64(),
            "{screen:?}: Show more shows more ({before} → {after})"
        );
        browser.assert_accessible(&format!("{screen:?}")).await;
    }
    browser.close().await;
}

#[actix_rt::test]
async fn edited_is_said_after_a_persons_edit_and_not_after_the_ais_answer() {
    let browser = start(&[]).await;
    let id = capture(&browser, "Call the plumber about the kitchen tap").await;
    let answered = browser
        .wait_for_api("done", &format!("/api/notes/{id}"), |note| {
            note["ai_status"] == "done"
        })
        .await;
    assert_ne!(
        answered["updated_at"], answered["created_at"],
        "the AI's answer is a write to the note"
    );
    assert_eq!(answered.get("edited_at"), None, "but no edit");
    let when = "document.querySelector('#note-detail h2 + .hint').textContent";
    for screen in [Screen::Desktop, Screen::Phone] {
        browser.emulate(screen, Scheme::Light).await;
        browser.open_inbox().await;
        open_note(&browser, &id).await;
        let said = browser.eval(&format!("return {when};")).await;
        assert_eq!(said, json!("Written just now"), "{screen:?}");
    }

    browser
        .api(
            "PATCH",
            &format!("/api/notes/{id}"),
            Some(json!({ "body": "Call the plumber about the bathroom tap" })),
        )
        .await;
    let edited = browser
        .wait_for_api("done again", &format!("/api/notes/{id}"), |note| {
            note["ai_status"] == "done"
        })
        .await;
    assert!(edited["edited_at"].is_string(), "{edited}");
    for screen in [Screen::Desktop, Screen::Phone] {
        browser.emulate(screen, Scheme::Light).await;
        browser.open_inbox().await;
        open_note(&browser, &id).await;
        let said = browser.eval(&format!("return {when};")).await;
        assert_eq!(
            said,
            json!("Written just now · edited just now"),
            "{screen:?}"
        );
    }
    browser.close().await;
}

#[actix_rt::test]
async fn the_tags_view_is_a_list_to_read_with_one_rename_box_opened_at_a_time() {
    let browser = start(&[]).await;
    let tags = [
        "errands", "family", "health", "ideas", "jeju", "links", "meetings", "reading", "recipes",
        "rust", "travel", "work",
    ];
    for (i, tag) in tags.iter().enumerate() {
        let id = capture(&browser, &format!("note {i}")).await;
        browser
            .api(
                "PATCH",
                &format!("/api/notes/{id}"),
                Some(json!({ "tags": [tag] })),
            )
            .await;
    }
    let boxes = "document.querySelectorAll('#tags input').length";
    for screen in [Screen::Desktop, Screen::Phone] {
        browser.emulate(screen, Scheme::Light).await;
        browser.open_inbox().await;
        browser.click("#views button[data-view=tags]").await;
        browser
            .wait_until(
                "every tag listed",
                &format!(
                    "document.querySelectorAll('#tags li').length === {}",
                    tags.len()
                ),
            )
            .await;
        // Read first: each row its tag, its count, Rename; no box to type in.
        assert_eq!(
            browser
                .eval(&format!(
                    "return [{boxes}, document.querySelectorAll('#tags li button.rename').length];"
                ))
                .await,
            json!([0, tags.len()]),
            "{screen:?}"
        );
        browser.assert_accessible(&format!("{screen:?}")).await;
        // Rename opens its row's box, the focus in it; another Rename moves it there.
        browser
            .click("#tags li[data-tag=health] button.rename")
            .await;
        browser
            .wait_until(
                "the box, focused",
                "document.activeElement === document.querySelector('#tags li[data-tag=health] input')",
            )
            .await;
        browser.click("#tags li[data-tag=rust] button.rename").await;
        browser
            .wait_until(
                "the other box, focused",
                "document.activeElement === document.querySelector('#tags li[data-tag=rust] input')",
            )
            .await;
        assert_eq!(
            browser.eval(&format!("return {boxes};")).await,
            json!(1),
            "{screen:?}"
        );
        // Esc closes it, and only it: the view stays, the focus on the row's Rename.
        browser.press("\u{E00C}").await;
        browser
            .wait_until(
                "closed, the focus back on Rename",
                &format!(
                    "{boxes} === 0 && document.activeElement === \
                     document.querySelector('#tags li[data-tag=rust] button.rename')"
                ),
            )
            .await;
        assert!(browser.is_shown("tags-view").await, "{screen:?}");
        // A refused name (empty) changes nothing and leaves the box open.
        browser.click("#tags li[data-tag=rust] button.rename").await;
        browser
            .type_into("#tags li[data-tag=rust] input", " ")
            .await;
        browser.press("\u{E007}").await;
        assert_eq!(
            browser.eval(&format!("return {boxes};")).await,
            json!(1),
            "{screen:?}"
        );
        browser.press("\u{E00C}").await;
    }
    // Renamed with the keyboard alone: the box closes and the list says so.
    browser.click("#tags li[data-tag=jeju] button.rename").await;
    browser
        .type_into("#tags li[data-tag=jeju] input", "trips")
        .await;
    browser.press("\u{E007}").await;
    browser
        .wait_until(
            "renamed",
            &format!(
                "document.querySelector('#tags li[data-tag=trips]') !== null && {boxes} === 0 && \
                 document.getElementById('tags-result').textContent === 'Renamed #jeju to #trips on 1 note.'"
            ),
        )
        .await;
    browser.close().await;
}

#[actix_rt::test]
async fn the_stats_charts_labels_are_whole_however_many_notes_a_day() {
    let browser = start(&[]).await;
    for screen in [Screen::Desktop, Screen::Phone] {
        browser.emulate(screen, Scheme::Light).await;
        browser.open_inbox().await;
        browser.click("#views button[data-view=stats]").await;
        browser
            .wait_until(
                "the chart drawn",
                "document.querySelectorAll('#chart text').length > 3",
            )
            .await;
        // Days as the usage log could count them: a quiet month, then one huge day (an
        // import), then a handful; each drawn, and every label inside the chart.
        let cut = browser
            .eval(&format!(
                "const {{ drawChart }} = await import({});\
                 const day = (i) => new Date(Date.UTC(2026, 10, 1 + i)).toISOString().slice(0, 10);\
                 const month = (big) => Array.from({{ length: 30 }}, (_, i) =>\
                   [day(i), {{ captured: i === 20 ? big : i % 3, aiDone: i === 20 ? big : i % 2 }}]);\
                 const cut = [];\
                 for (const big of [3, 40, 900, 2000, 12345]) {{\
                   drawChart(month(big));\
                   const box = document.getElementById('chart').viewBox.baseVal;\
                   for (const text of document.querySelectorAll('#chart text')) {{\
                     const b = text.getBBox();\
                     if (b.x < 0 || b.y < 0 || b.x + b.width > box.width || b.y + b.height > box.height)\
                       cut.push(big + ': ' + text.textContent + ' at ' + Math.round(b.x) + ',' + Math.round(b.y));\
                   }}\
                 }}\
                 return cut;",
                crate::harness::module("stats.js")
            ))
            .await;
        assert_eq!(cut, json!([]), "{screen:?}: labels cut at the chart's edge");
    }
    browser.close().await;
}

#[actix_rt::test]
async fn the_stats_week_agrees_with_the_notes_after_a_trash_and_the_ai_run_again() {
    let browser = start(&[]).await;
    let mut ids = Vec::new();
    for body in [
        "first of the week",
        "second of the week",
        "third of the week",
    ] {
        ids.push(capture(&browser, body).await);
    }
    for id in &ids {
        browser
            .wait_for_api("done", &format!("/api/notes/{id}"), |note| {
                note["ai_status"] == "done"
            })
            .await;
    }
    // The usage log keeps counting what happened: 3 captures, 4 AI answers.
    browser
        .api("POST", &format!("/api/notes/{}/trash", ids[0]), None)
        .await;
    let before = browser.fake.calls().len();
    browser
        .api("POST", &format!("/api/notes/{}/enrich", ids[1]), None)
        .await;
    for _ in 0..200 {
        if browser.fake.calls().len() > before {
            break;
        }
        // Waiting for the worker, not a timed rule.
        actix_rt::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    browser
        .wait_for_api("done again", &format!("/api/notes/{}", ids[1]), |note| {
            note["ai_status"] == "done"
        })
        .await;
    for screen in [Screen::Desktop, Screen::Phone] {
        browser.emulate(screen, Scheme::Light).await;
        browser.open_inbox().await;
        browser.click("#views button[data-view=stats]").await;
        browser
            .wait_until(
                "the week counted",
                "document.getElementById('stat-week').textContent !== ''",
            )
            .await;
        // The notes there are: two, both done (not 3 notes and 4 processed).
        assert_eq!(browser.text("#stat-week").await, "2 notes", "{screen:?}");
        assert_eq!(
            browser.text("#stat-week-ai").await,
            "2 processed by the AI",
            "{screen:?}"
        );
    }
    let rule = browser
        .eval(&format!(
            "const {{ weekCounts }} = await import({});\
             const note = (day, ai_status) => ({{ created_at: day + 'T10:00:00.000Z', ai_status }});\
             return [weekCounts([note('2026-12-03', 'done'), note('2026-11-27', 'pending')], '2026-11-27'),\
                     weekCounts([note('2026-12-03', 'failed'), note('2026-11-26', 'done')], '2026-11-27'),\
                     weekCounts([], '2026-11-27')];",
            crate::harness::module("stats.js")
        ))
        .await;
    assert_eq!(
        rule,
        json!([
            { "written": 2, "done": 1, "reachedOlder": false },
            { "written": 1, "done": 0, "reachedOlder": true },
            { "written": 0, "done": 0, "reachedOlder": false },
        ])
    );
    browser.close().await;
}
