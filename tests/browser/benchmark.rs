//! The list's benchmarks (docs/PERFORMANCE.md, "The notes page"): ignored in the test
//! run, because they measure rather than assert. Run them with
//!
//! ```sh
//! cargo test --release --test browser benchmark -- --ignored --nocapture --test-threads 1
//! ```
//!
//! Each prints its figures; the page marks when its first cards were there
//! (`inkling:first-cards`).

use std::time::{Duration, Instant};

use serde_json::json;

use crate::harness::{start_with_notes, Browser};

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Scrolls to the end, a frame at a time, as a person holding End would, until `cards`
/// cards are on the page; returns how long it took in the page (the loop runs there,
/// so WebDriver's round trips are not counted).
async fn scroll_until(browser: &Browser, cards: usize) -> Duration {
    browser
        .eval(&format!(
            r#"window.scrolled = null;
            const started = performance.now();
            const frame = () => {{
              if (document.querySelectorAll('#notes li').length >= {cards}) {{
                window.scrolled = performance.now() - started;
                return;
              }}
              window.scrollTo(0, document.body.scrollHeight);
              requestAnimationFrame(frame);
            }};
            requestAnimationFrame(frame);
            return true;"#
        ))
        .await;
    loop {
        let took = browser.eval("return window.scrolled;").await;
        if let Some(ms) = took.as_f64() {
            return Duration::from_secs_f64(ms / 1000.0);
        }
        actix_rt::time::sleep(Duration::from_millis(200)).await;
    }
}

#[actix_rt::test]
#[ignore = "a benchmark: cargo test --release --test browser benchmark -- --ignored --nocapture"]
async fn benchmark_ten_thousand_notes_first_cards_and_reaching_the_last() {
    let browser = start_with_notes(&[], 10_000).await;
    let mut first = Vec::new();
    browser.open_inbox().await;
    for _ in 0..7 {
        browser.client.refresh().await.unwrap();
        browser
            .wait_until(
                "a page",
                "document.querySelectorAll('#notes li').length === 50",
            )
            .await;
        let at = browser
            .eval("return performance.getEntriesByName('inkling:first-cards')[0].startTime;")
            .await;
        first.push(at.as_f64().unwrap());
    }
    let stages = browser
        .eval(r#"const n = performance.getEntriesByType('navigation')[0];
            const r = (part) => performance.getEntriesByType('resource').find(e => e.name.includes(part));
            return {html: n.responseEnd, script_run: n.domContentLoadedEventStart, status: r('/api/status')?.responseEnd, list: r('/api/notes?')?.responseEnd, cards: performance.getEntriesByName('inkling:first-cards')[0].startTime};"#)
        .await;
    println!("the last load, ms from navigation: {stages}");
    println!(
        "first 50 cards of 10,000 notes, from navigation: median {:.0} ms, max {:.0} ms ({first:?})",
        median(first.clone()),
        first.iter().cloned().fold(0.0, f64::max)
    );

    browser
        .eval(r#"window.timing = {render: []};
            document.addEventListener("inkling:render", (event) => window.timing.render.push(event.detail.ms));
            performance.clearResourceTimings(); performance.setResourceTimingBufferSize(5000); return true;"#)
        .await;
    let took = scroll_until(&browser, 10_000).await;
    let timing = browser
        .eval(r#"const med = (a) => { a = a.slice().sort((x, y) => x - y); return [a[Math.floor(a.length / 2)], a[a.length - 1], a.length]; };
            const fetches = performance.getEntriesByType('resource').filter(e => e.name.includes('before=')).map(e => e.duration);
            return {render: med(window.timing.render), fetch: med(fetches)};"#)
        .await;
    println!("timing (median, max, count) in ms: {timing}");
    let last = browser
        .eval("const cards = document.querySelectorAll('#notes li'); return cards[cards.length - 1].querySelector('a.open').textContent;")
        .await;
    assert_eq!(
        last,
        json!("stored note 0"),
        "the 10,000th note, the oldest"
    );
    println!(
        "reaching the 10,000th note by scrolling (holding End): {:.1} s, the list rendered {} times on the way",
        took.as_secs_f64(),
        timing["render"][2]
    );
    browser.close().await;
}

#[actix_rt::test]
#[ignore = "a benchmark: cargo test --release --test browser benchmark -- --ignored --nocapture"]
async fn benchmark_scrolling_a_thousand_notes_during_twenty_events_a_second() {
    // 1,500 stored, about 1,000 loaded: the others are changed too, as a control.
    let browser = start_with_notes(&[], 1_500).await;
    browser.open_inbox().await;
    scroll_until(&browser, 1_000).await;
    let ids = browser
        .eval("return [...document.querySelectorAll('#notes li')].map(li => li.dataset.id);")
        .await;
    let ids: Vec<String> = ids
        .as_array()
        .unwrap()
        .iter()
        .map(|id| id.as_str().unwrap().to_string())
        .collect();

    // The page scrolls up and down a screen at a time, every frame, and counts frames.
    browser
        .eval(
            r#"window.scrollTo(0, 0);
            window.bench = { frames: [], step: 40 };
            const frame = (at) => {
              window.bench.frames.push(at);
              const max = document.body.scrollHeight - innerHeight;
              if (scrollY + window.bench.step > max || scrollY + window.bench.step < 0) window.bench.step *= -1;
              window.scrollBy(0, window.bench.step);
              if (!window.bench.stop) requestAnimationFrame(frame);
            };
            requestAnimationFrame(frame);
            return true;"#,
        )
        .await;
    // The same scrolling with nothing happening, for comparison: what this browser
    // can draw at all (headless Chromium rasterises in software here).
    actix_rt::time::sleep(Duration::from_secs(5)).await;
    let quiet = frame_rate(&browser).await;
    println!(
        "1,000 cards, scrolling with no events for 5 s: {:.1} fps, frame p99 {:.1} ms, longest {:.1} ms",
        quiet[0], quiet[1], quiet[2]
    );
    browser
        .eval(r#"window.handled = []; window.renders = [];
            document.addEventListener("inkling:event", (event) => { if (event.detail.event === "note_changed") window.handled.push(event.detail.ms); });
            document.addEventListener("inkling:render", (event) => window.renders.push(event.detail.ms));
            return true;"#)
        .await;
    // A backlog finishing: 20 notes changed a second for 10 s, each a live event.
    let seconds = 10;
    change_notes(&browser, &ids, seconds).await;
    let busy = frame_rate(&browser).await;
    let handling = browser
        .eval("const a = window.handled.slice().sort((x, y) => x - y); return [a.length, a[Math.floor(a.length / 2)], a[Math.floor(a.length * 0.99)]];")
        .await;
    // The events' renders: one per task, however many events that task handled.
    let renders = browser
        .eval("const a = window.renders.slice().sort((x, y) => x - y); return [a.length, a[Math.floor(a.length / 2)], a[Math.floor(a.length * 0.99)]];")
        .await;
    println!(
        "the page's work per live event (its handler, the store updated): {} events, median {:.2} ms, p99 {:.2} ms",
        handling[0],
        handling[1].as_f64().unwrap(),
        handling[2].as_f64().unwrap()
    );
    println!(
        "the renders those events scheduled: {} renders, median {:.2} ms, p99 {:.2} ms",
        renders[0],
        renders[1].as_f64().unwrap(),
        renders[2].as_f64().unwrap()
    );
    println!(
        "1,000 cards, scrolling during 20 events/s for {seconds} s: {:.1} fps, frame p99 {:.1} ms, longest {:.1} ms",
        busy[0], busy[1], busy[2]
    );
    // The control: the same writes and events for notes the page has not loaded (it
    // ignores them), so what is left is the service's share of the two cores.
    let last = ids.last().unwrap();
    let others = browser
        .api("GET", &format!("/api/notes?limit=400&before={last}"), None)
        .await;
    let others: Vec<String> = others
        .as_array()
        .unwrap()
        .iter()
        .map(|note| note["id"].as_str().unwrap().to_string())
        .collect();
    frame_rate(&browser).await;
    change_notes(&browser, &others, seconds).await;
    let control = frame_rate(&browser).await;
    println!(
        "the same, for notes not loaded (the service's work alone): {:.1} fps, frame p99 {:.1} ms, longest {:.1} ms",
        control[0], control[1], control[2]
    );
    browser.close().await;
}

/// Changes 20 of `ids` a second for `seconds` (a tag edit each: a write and a live
/// event, as an enrichment saved is).
async fn change_notes(browser: &Browser, ids: &[String], seconds: usize) {
    let client = awc::Client::new();
    let started = Instant::now();
    for i in 0..(20 * seconds) {
        let id = &ids[(i * 37) % ids.len()];
        client
            .patch(format!("{}/api/notes/{id}", browser.app_url))
            .bearer_auth(&browser.token)
            .send_json(&json!({ "tags": [format!("tag{}", i % 7)] }))
            .await
            .unwrap();
        let due = Duration::from_millis(50 * (i as u64 + 1));
        if let Some(wait) = due.checked_sub(started.elapsed()) {
            actix_rt::time::sleep(wait).await;
        }
    }
}

/// Frames a second since the last reading, the 99th percentile and the longest frame
/// (ms); starts the next reading.
async fn frame_rate(browser: &Browser) -> [f64; 3] {
    let frames = browser
        .eval(
            r#"const f = window.bench.frames;
            window.bench.frames = [];
            const gaps = f.slice(1).map((t, i) => t - f[i]).sort((a, b) => a - b);
            return [(f.length - 1) / ((f[f.length - 1] - f[0]) / 1000), gaps[Math.floor(gaps.length * 0.99)], gaps[gaps.length - 1]];"#,
        )
        .await;
    [0, 1, 2].map(|i| frames[i].as_f64().unwrap())
}
