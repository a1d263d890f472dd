//! How long `stats.md` takes to build from a year of usage events (~100,000 lines).
//!
//! Run: `cargo bench --bench usage_stats`. Prints the best and the median of 7 runs of
//! read (parse every line, strictly) → aggregate per day → render Markdown. Quoted in
//! docs/PERFORMANCE.md. Under `cargo test` (no `--bench` argument) it does nothing.

use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use inkling::configuration::Locale;
use inkling::telemetry::events::{
    AiDone, AiFailed, AiRetryManual, FailedReason, NoFields, UsageEvent,
};
use inkling::telemetry::{log, stats};

const EVENTS: usize = 100_000;
const RUNS: usize = 7;

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let dir = tempfile::tempdir().expect("a temp dir");
    let start: DateTime<Utc> = "2025-03-01T00:00:00Z".parse().expect("a date");
    let step = chrono::Duration::seconds(365 * 24 * 3600 / EVENTS as i64);
    let mut files: std::collections::BTreeMap<String, String> = Default::default();
    for i in 0..EVENTS {
        let at = start + step * i as i32;
        let event = match i % 10 {
            0..=3 => UsageEvent::NoteCaptured(NoFields {}),
            4..=7 => UsageEvent::AiDone(AiDone {
                latency_ms: 1200 + i as u64 % 500,
            }),
            8 => UsageEvent::AiFailed(AiFailed {
                reason: FailedReason::Schema,
                attempts: 3,
            }),
            _ => UsageEvent::AiRetryManual(AiRetryManual {
                failed_count: 1 + i as u64 % 4,
            }),
        };
        let line = event
            .to_line(&inkling::domain::timestamp(at))
            .expect("a valid event");
        let file = files.entry(log::file_name(at.date_naive(), 0)).or_default();
        file.push_str(&line);
        file.push('\n');
    }
    let bytes: usize = files.values().map(String::len).sum();
    for (name, text) in &files {
        std::fs::write(dir.path().join(name), text).expect("write");
    }

    let mut times: Vec<Duration> = Vec::new();
    for _ in 0..RUNS {
        let started = Instant::now();
        let contents = log::read_events(dir.path()).expect("read");
        let report = stats::render_markdown(&stats::aggregate(contents.events), Locale::En, "now");
        times.push(started.elapsed());
        assert!(report.contains("| 2025-03-01 |"));
    }
    times.sort();
    println!(
        "usage_stats: {EVENTS} events in {} files ({:.1} MB): best {:?}, median {:?} (read + aggregate + render)",
        files.len(),
        bytes as f64 / 1e6,
        times[0],
        times[RUNS / 2]
    );
}
