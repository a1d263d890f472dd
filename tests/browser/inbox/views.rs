//! The inbox page's other views in Chromium: stats, search, tags, export and import.

use serde_json::json;

use crate::harness::start;

#[actix_rt::test]
async fn the_stats_view_shows_the_daily_table_and_a_chart() {
    let browser = start(&[]).await;
    for i in 0..3 {
        browser
            .api(
                "POST",
                "/api/notes",
                Some(json!({ "body": format!("counted {i}") })),
            )
            .await;
    }
    browser.open_inbox().await;
    browser
        .wait_until(
            "three done",
            "document.querySelectorAll('#notes li[data-status=done]').length === 3",
        )
        .await;

    browser.click("button[data-view=stats]").await;

    browser
        .wait_until(
            "a row for today",
            "document.querySelectorAll('#stats-table tbody tr').length === 1",
        )
        .await;
    let row = browser
        .eval("return [...document.querySelectorAll('#stats-table tbody td')].map(td => td.textContent);")
        .await;
    assert_eq!(row[1], "3", "captured: {row}");
    assert_eq!(row[2], "3", "AI done: {row}");
    // Day one reads as one bar among thirty days, not a block across the chart.
    let bars = browser
        .eval("const bars = document.querySelectorAll('#chart rect.bar'); return [bars.length, Number(bars[0].getAttribute('width'))];")
        .await;
    assert_eq!(bars[0], json!(1));
    assert!(bars[1].as_f64().unwrap() < 600.0 / 20.0, "{bars}");
    // What a person asks first, in words.
    assert_eq!(browser.text("#stat-week").await, "3 notes");
    assert_eq!(browser.text("#stat-week-ai").await, "3 processed by the AI");
    assert!(browser.text("#stat-tags").await.contains("#fake 3"));
    assert_eq!(browser.text("#stat-oldest").await, "Nothing is waiting.");
    // Axes with a scale and dates; the same said in words for a screen reader.
    let labels = browser
        .eval("return [...document.querySelectorAll('#chart text')].map(t => t.textContent);")
        .await;
    let labels: Vec<&str> = labels
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    assert!(labels.contains(&"0") && labels.contains(&"3"), "{labels:?}");
    let today = chrono::Utc::now().format("%b %-d").to_string();
    assert!(
        labels.contains(&today.as_str()),
        "{labels:?} has no {today}"
    );
    assert_eq!(
        browser.text("#chart-summary").await,
        format!(
            "Last 30 days: 3 notes, 3 notes processed by the AI. Busiest day: {today} (3 notes)."
        )
    );
    // The developer's counters are there, behind "Diagnostics".
    assert_eq!(
        browser
            .eval("return document.getElementById('diagnostics').open;")
            .await,
        json!(false)
    );
    browser.close().await;
}

/// Search from the page: `/` focuses the box, results follow the typing, the matched
/// words are marked, and Escape gives the list back.
#[actix_rt::test]
async fn searching_on_the_page_shows_the_hits_as_you_type_with_the_words_marked() {
    let browser = start(&[]).await;
    browser
        .open_inbox_with_notes(&[
            "tomato soup for Sunday",
            "call the plumber",
            "오늘은 사과를 샀다",
        ])
        .await;

    let body = browser
        .client
        .find(fantoccini::Locator::Css("body"))
        .await
        .unwrap();
    body.send_keys("/").await.unwrap();
    assert_eq!(
        browser.eval("return document.activeElement.id;").await,
        json!("search")
    );
    let search = browser
        .client
        .find(fantoccini::Locator::Id("search"))
        .await
        .unwrap();
    search.send_keys("tomat").await.unwrap();
    browser
        .wait_until(
            "one hit, its word marked",
            "document.querySelectorAll('#notes .note').length === 1 && \
             document.querySelector('#notes .note mark')?.textContent === 'tomat'",
        )
        .await;

    search.send_keys("\u{E00C}").await.unwrap(); // Escape
    browser
        .wait_until(
            "the whole list again",
            "document.querySelectorAll('#notes .note').length === 3",
        )
        .await;
    search.send_keys("사과").await.unwrap();
    browser
        .wait_until(
            "the Korean note",
            "document.querySelector('#notes .note mark')?.textContent === '사과'",
        )
        .await;
    search.send_keys("\u{E00C}zzzz").await.unwrap();
    browser.wait_visible("notes-empty").await;
    assert_eq!(browser.text("#notes-empty").await, "No notes match.");
    browser.close().await;
}

#[actix_rt::test]
async fn the_tags_view_lists_counts_and_renames_or_merges_a_tag() {
    let browser = start(&[]).await;
    for (body, tags) in [
        ("a", json!(["cooking"])),
        ("b", json!(["recipes", "cooking"])),
    ] {
        let note = browser
            .api("POST", "/api/notes", Some(json!({ "body": body })))
            .await;
        let id = note["id"].as_str().unwrap();
        let client = awc::Client::new();
        let response = client
            .patch(format!("{}/api/notes/{id}", browser.app_url))
            .bearer_auth(&browser.token)
            .send_json(&json!({ "tags": tags }))
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
    }
    browser.open_inbox().await;
    browser.click("#views button[data-view=tags]").await;
    browser
        .wait_until(
            "two tags with their counts",
            "document.querySelectorAll('#tags li').length === 2 && \
             document.querySelector('#tags li[data-tag=cooking] .count').textContent === '2 notes'",
        )
        .await;
    browser
        .click("#tags li[data-tag=recipes] button.rename")
        .await;
    browser
        .type_into("#tags li[data-tag=recipes] input", "Cooking")
        .await;
    browser
        .click("#tags li[data-tag=recipes] button[type=submit]")
        .await;
    browser
        .wait_until(
            "merged",
            "document.getElementById('tags-result').textContent === 'Merged #recipes into #cooking (1 note).' && \
             document.querySelectorAll('#tags li').length === 1",
        )
        .await;
    let tags = browser.api("GET", "/api/tags", None).await;
    assert_eq!(tags, json!([{ "tag": "cooking", "count": 2 }]));
    // A tag's button filters the inbox by it.
    browser.click("#tags li[data-tag=cooking] button.tag").await;
    browser
        .wait_until(
            "the inbox, filtered",
            "!document.getElementById('inbox-view').hidden && \
             document.querySelectorAll('#notes .note').length === 2",
        )
        .await;
    browser.close().await;
}

#[actix_rt::test]
async fn notes_are_exported_and_imported_from_the_page() {
    let browser = start(&[]).await;
    browser.open_inbox_with_notes(&["one", "two"]).await;
    browser.click("#views button[data-view=stats]").await;
    // The download itself is the browser's; the file handed to it is kept for a look.
    browser
        .eval(
            "window.handedOver = []; const make = URL.createObjectURL; \
             URL.createObjectURL = (blob) => { window.handedOver.push(blob); return make(blob); }; \
             return true;",
        )
        .await;
    browser.click("#export-notes").await;
    browser
        .wait_until(
            "exported",
            "/^2 notes exported to inkling-notes-\\d{4}-\\d\\d-\\d\\d\\.json\\.$/.test(\
             document.getElementById('transfer-result').textContent)",
        )
        .await;
    let handed = browser
        .eval("return window.handedOver[0].text().then((text) => JSON.parse(text).notes.length);")
        .await;
    assert_eq!(
        handed,
        json!(2),
        "the file the browser saves holds both notes"
    );

    // Files chosen in the picker (given to it as a person's choice would).
    browser
        .eval(
            "const picked = new DataTransfer(); \
             picked.items.add(new File(['---\\ntitle: Soup\\ntags: [cooking]\\n---\\nTomato soup.\\n'], 'soup.md')); \
             picked.items.add(new File([JSON.stringify({ inkling_export: 1, notes: [{ body: 'from json' }] })], 'export.json')); \
             const input = document.getElementById('import-file'); \
             input.files = picked.files; \
             input.dispatchEvent(new Event('change')); \
             return true;",
        )
        .await;
    browser
        .wait_until(
            "imported",
            "document.getElementById('transfer-result').textContent === 'Imported 2 notes.'",
        )
        .await;
    let soup = browser.api("GET", "/api/notes?tag=cooking", None).await;
    assert_eq!(soup[0]["title"], "Soup");
    assert_eq!(soup[0]["body"], "Tomato soup.\n");
    let all = browser.api("GET", "/api/notes", None).await;
    assert_eq!(all.as_array().unwrap().len(), 4);

    // A bad file: the service says which, and nothing comes in.
    browser
        .eval(
            "const picked = new DataTransfer(); \
             picked.items.add(new File(['   '], 'blank.md')); \
             const input = document.getElementById('import-file'); \
             input.files = picked.files; \
             input.dispatchEvent(new Event('change')); \
             return true;",
        )
        .await;
    browser
        .wait_until(
            "refused",
            "document.getElementById('transfer-result').textContent.startsWith('blank.md: the note body is empty')",
        )
        .await;
    let all = browser.api("GET", "/api/notes", None).await;
    assert_eq!(all.as_array().unwrap().len(), 4);
    browser.close().await;
}
