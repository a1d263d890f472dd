//! A long note never holds up a short one (docs/PERFORMANCE.md, "Long notes among
//! short ones"): a morning of 48 short notes, a pasted 40,000-character article and an
//! 8,000-character one, two outages, on the simulated slow CPU of the day test
//! (`day.rs`). Taken in the order they became due, the article's minutes of reading
//! made every note behind it wait; the cheapest due job goes first now, a long note's
//! reading is capped (`worker.longest_read_ms`), and a long note waits at most 20
//! minutes for shorter ones.
//!
//! `cargo test --test pipeline long_notes -- --nocapture` prints the table.

use crate::day::{article, run_day, Event, Kind};
use crate::harness::PausedSystem;

/// The morning's events, by second since start: the model is there from the start.
fn morning() -> Vec<(u64, Event)> {
    use Event::*;
    let subjects = [
        "Call the plumber about the kitchen sink",
        "회의 메모: 예산안 다시 확인하기",
        "Book a table for four on Saturday",
        "Return the library books",
        "Ask IT for a second monitor",
        "장보기: 두부, 대파, 계란",
        "Draft the newsletter intro",
        "Check the tyre pressure",
    ];
    let mut events: Vec<(u64, Event)> = (0..48u64)
        .map(|i| {
            let text = format!("{} ({})", subjects[i as usize % subjects.len()], i + 1);
            (30 + i * 45, Capture(Kind::Ordinary, text))
        })
        .collect();
    events.push((60, Capture(Kind::Article, article())));
    let short_article: String = article().chars().take(8_000).collect();
    events.push((400, Capture(Kind::Article, short_article)));
    events.push((900, OllamaStops));
    events.push((940, OllamaStarts));
    events.push((1_500, OllamaStops));
    events.push((1_680, OllamaStarts));
    events.sort_by_key(|(at, _)| *at);
    events
}

#[actix_rt::test(system = "PausedSystem")]
async fn short_notes_go_first_and_long_ones_are_done_the_same_morning() {
    let day = run_day(morning()).await;
    assert_eq!(day.captured, 50);
    assert_eq!((day.failed, day.pending), (0, 0), "every note enriched");
    assert!(day.p95 <= 120.0, "an ordinary note's p95: {} s", day.p95);
    for (title, read, took) in &day.articles {
        assert!(
            title
                .as_deref()
                .is_some_and(|t| t.starts_with("About: Why the bridge")),
            "titled from its beginning: {title:?}"
        );
        assert!(read.is_some(), "its reading was capped");
        assert!(
            took.is_some_and(|s| s <= 3_600.0),
            "done within the hour: {took:?}"
        );
    }
    assert_eq!(
        day.aborted, 0,
        "nothing wasted by the order: no call abandoned"
    );
    assert_eq!(day.truncated, 0);
    assert_eq!(day.invariant_violations, 0);
}
