//! The note just written comes first (docs/PERFORMANCE.md, "Fresh notes first"; issue
//! #38 point 1), end to end on virtual time against the simulated slow CPU of the day
//! test (`day.rs`: 25 prompt and 10 output tokens a second, a 15 s cold load): ten notes
//! captured before the model is pulled at 5 minutes, two pasted articles just after,
//! then an ordinary note every 27 s for two hours (a line, a paragraph, now and then a
//! page).
//!
//! It measures each kind of note's wait, from when it could first have been enriched
//! (captured, or, for the backlog, when the service saw the model pulled and began to
//! load it) to its title: fresh notes (captured while
//! the model was ready) and the backlog (captured before), and each note's wait over
//! its fair share of the model's time (what it would wait were the model's time split
//! evenly among the notes waiting, each note's turn counted as long as it took, the
//! call or the model's load in flight when a note came counted whole: a call is never
//! cut). It asserts the issue's
//! goals, which are the policy's outcomes on virtual time (no wall clock is measured):
//! fresh ordinary notes within 2 minutes at p95, the backlog done within the day, no
//! note past twice its fair share.
//!
//! `cargo test --test pipeline fresh_first -- --nocapture` prints the table, as does
//! `cargo bench --bench pipeline -- fresh` (the same day, without the goals' checks).

use inkling::actors::ai_worker::core::processor_sharing;

use crate::day::{article, percentile, run_day, Event, Figures, Kind};
use crate::harness::PausedSystem;

/// The morning's events, by second since install (also run by `benches/pipeline`'s
/// `fresh`).
pub fn morning() -> Vec<(u64, Event)> {
    use Event::*;
    let ordinary = [
        "Renew the car insurance; last year's quote was too high",
        "Meeting notes: ship the beta on the 14th, docs first",
        "회의 메모: 다음 주 화요일까지 예산안을 다시 확인하기",
        "Book a table for four at the Thai place on Saturday",
        "The garden needs mulch before the frost",
        "Podcast idea: interviews with people who repair old radios",
        "Return the library books, two are overdue",
        "Recipe: lentil soup with cumin, lemon and a lot of garlic",
        "Ask the landlord about the heating in the back room",
        "장보기: 두부, 대파, 계란, 우유 사기",
        "Bug: the export button does nothing on the settings page",
        "Lunch with Sam next Wednesday, somewhere near the office",
    ];
    let mut events: Vec<(u64, Event)> = Vec::new();
    // Installed, the model not pulled yet: ten notes wait for it.
    for i in 0..10u64 {
        let text = format!("({}) {}", i + 1, ordinary[i as usize % ordinary.len()]);
        events.push((i * 25, Capture(Kind::Ordinary, text)));
    }
    events.push((300, ModelPulled));
    // Two pasted articles, 40,000 and 12,000 characters.
    events.push((320, Capture(Kind::Article, article())));
    let shorter: String = article().chars().take(12_000).collect();
    events.push((
        380,
        Capture(Kind::Article, format!("A shorter copy: {shorter}")),
    ));
    // Then a note every 27 s for two hours: mostly a line, every third a paragraph,
    // every seventh a page (what a short-first order could starve).
    let paragraph = " The plan is to talk it over on Monday, write down what we agree, \
        and send it round before the end of the week so nobody is surprised.";
    for i in 0..267u64 {
        let mut text = format!("({}) {}", i + 11, ordinary[i as usize % ordinary.len()]);
        let sentences = match i {
            i if i % 7 == 6 => 8,
            i if i % 3 == 2 => 3,
            _ => 0,
        };
        for _ in 0..sentences {
            text.push_str(paragraph);
        }
        events.push((420 + i * 27, Capture(Kind::Ordinary, text)));
    }
    events.sort_by_key(|(at, _)| *at);
    events
}

/// What the day says of each kind of note.
pub struct Waits {
    /// Fresh ordinary notes, and the backlog: p50, p95, max (s) and how many.
    pub fresh: (f64, f64, f64, usize),
    pub backlog: (f64, f64, f64, usize),
    /// The articles' waits (s).
    pub articles: Vec<f64>,
    /// The longest wait over its fair share, of every note.
    pub worst_over_share: f64,
    /// When the last backlog note was done (s since install).
    pub backlog_done: f64,
}

fn stats(values: &[f64]) -> (f64, f64, f64, usize) {
    (
        percentile(values.to_vec(), 50.0),
        percentile(values.to_vec(), 95.0),
        values.iter().copied().fold(f64::NAN, f64::max),
        values.len(),
    )
}

/// Each note's wait, by kind, and over its fair share; prints the table.
pub fn waits(day: &Figures) -> Waits {
    // The backlog waits from when the service saw the model pulled: its load began.
    let pulled = day.pulled_at as f64;
    let ready = day
        .calls
        .iter()
        .map(|call| call.began)
        .filter(|began| *began >= pulled)
        .fold(f64::INFINITY, f64::min);
    let ready = if ready.is_finite() { ready } else { pulled };
    let since = |captured: f64| captured.max(ready);
    // A note joins the even split when the call (or the model's load) in flight as it
    // came has ended.
    let joins = |at: f64| {
        day.calls
            .iter()
            .find(|call| call.began <= at && at < call.ended)
            .map_or(at, |call| call.ended)
    };
    // Each note's size is its turn: from when the worker was free for it (the note
    // before done, or when it joined if later) to its title. That is the model's time
    // and the worker's own steps around it (to the day's 2 s step).
    let mut by_done: Vec<(f64, usize)> = day
        .notes
        .iter()
        .enumerate()
        .filter_map(|(i, n)| n.done.map(|done| (done, i)))
        .collect();
    by_done.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut turns = vec![0.0; day.notes.len()];
    let mut free = 0.0f64;
    for (done, i) in by_done {
        turns[i] = done - free.max(joins(since(day.notes[i].captured)));
        free = done;
    }
    let shares = processor_sharing(
        &day.notes
            .iter()
            .zip(&turns)
            .map(|(n, turn)| (joins(since(n.captured)), *turn))
            .collect::<Vec<_>>(),
    );
    let (mut fresh, mut backlog, mut articles) = (Vec::new(), Vec::new(), Vec::new());
    let (mut worst, mut backlog_done) = (0.0f64, 0.0f64);
    for (note, share_complete) in day.notes.iter().zip(&shares) {
        let Some(done) = note.done else { continue };
        let start = since(note.captured);
        let wait = done - start;
        worst = worst.max(wait / (share_complete - start));
        if note.captured < pulled {
            backlog.push(wait);
            backlog_done = backlog_done.max(done);
        } else if note.kind == Kind::Article {
            articles.push(wait);
        } else {
            fresh.push(wait);
        }
    }
    let waits = Waits {
        fresh: stats(&fresh),
        backlog: stats(&backlog),
        articles,
        worst_over_share: worst,
        backlog_done,
    };
    let row = |what: &str, (p50, p95, max, n): (f64, f64, f64, usize)| {
        println!("| {what} ({n} notes) | {p50:.0} s | {p95:.0} s | {max:.0} s |");
    };
    println!("| wait, capture (or the pull) → enriched | p50 | p95 | max |");
    println!("|---|---|---|---|");
    row("fresh ordinary notes", waits.fresh);
    row("the backlog", waits.backlog);
    println!(
        "| the articles | {} | | |",
        waits
            .articles
            .iter()
            .map(|w| format!("{w:.0} s"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    println!(
        "| the longest wait over its fair share | {:.2}× | | |",
        waits.worst_over_share
    );
    println!(
        "| the backlog's last note done | {:.0} s after install | | |",
        waits.backlog_done
    );
    waits
}

#[actix_rt::test(system = "PausedSystem")]
async fn fresh_notes_first_on_a_slow_cpu_day_and_the_backlog_within_its_fair_share() {
    let day = run_day(morning()).await;
    assert_eq!(day.captured, 279);
    assert_eq!((day.failed, day.pending), (0, 0), "every note enriched");
    let waits = waits(&day);
    let (_, fresh_p95, _, _) = waits.fresh;
    assert!(fresh_p95 <= 120.0, "fresh notes' p95: {fresh_p95} s");
    assert_eq!(waits.backlog.3, 10, "the whole backlog done within the day");
    assert!(
        waits.worst_over_share <= 2.0,
        "a note waited {:.2}× its fair share",
        waits.worst_over_share
    );
    assert_eq!(day.aborted, 0, "no call abandoned");
    assert_eq!(day.invariant_violations, 0);
}
