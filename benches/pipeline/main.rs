//! The service's hot paths, measured against their own floor (docs/PERFORMANCE.md).
//!
//! Run: `cargo bench --bench pipeline` (release build; ~1–2 minutes on 2 cores).
//! Sections (run one with `cargo bench --bench pipeline -- capture|retry|worker|search|tags|rename|integrity|compaction|peers|fresh`):
//! - capture: p50/p99 latency and throughput of `POST /api/notes` with 8 concurrent
//!   clients, 2,000 notes, durable commits; split into SQLite commit, actor hop, HTTP;
//! - retry: retry-all over 100,000 failed notes end to end (HTTP) against the same SQL
//!   run raw on a copy of the database;
//! - worker: notes per second through the whole pipeline with an instant fake provider
//!   against a loop that calls the same provider and commits the same rows;
//! - search: p50/p99 of one-word searches over 100,000 notes, per word from one in
//!   half the notes to one in 10,000: the bare FTS5 query (same match, rank and limit)
//!   run raw, `Store::search`, and `GET /api/notes?q=` end to end;
//! - tags: over 100,000 tagged notes, the read of the prompt's 50 most used tags (before
//!   every provider call) and the save of an answer with its tags tidied, against a
//!   capture's commit;
//! - rename: a tag on 20,000 of 100,000 notes renamed through the repository while a
//!   client captures notes one after another: the rename's time and the captures'.
//! - integrity: the check at start (`PRAGMA quick_check`) of 100,000 tagged notes of
//!   ordinary length, the file in the page cache and dropped from it, and a start of
//!   the service on it: until `build` returns, and until the first capture is stored.
//! - compaction: the change log of 100,000 notes, four changes each, compacted to each
//!   note's newest change a step at a time (the first pass), and the next hour's pass.
//!
//! - peers: the look-up of a new connection's owner in `/proc/net/tcp` (each accepted
//!   connection pays one), with few and with 500 other connections open on the
//!   machine, and captures by 8 clients that open a new connection for each (as the CLI
//!   does), so every capture pays it.
//!
//! - fresh: the slow CPU's morning of `tests/pipeline/fresh_first.rs` on virtual time
//!   (fresh notes and the backlog: their waits, and the longest over its fair share).
//!
//! Under `cargo test` (no `--bench` argument) it does nothing.

#[path = "../../tests/support/fake_http.rs"]
mod fake_http;
#[path = "../../tests/support/fake_ollama.rs"]
mod fake_ollama;
// The pipeline harness needs it; the benches use the Ollama fake.
#[path = "../../tests/support/fake_openai.rs"]
mod fake_openai;
// The pipeline harness's speech-to-text fake (voice notes).
#[path = "../../tests/support/fake_whisper.rs"]
mod fake_whisper;
#[path = "../../tests/support/ports.rs"]
mod ports;
#[path = "../../tests/support/service.rs"]
mod service;
// The pipeline tests' virtual-time harness and simulated days, for `fresh`: only what
// the day needs is used here, and their tests are not compiled.
#[allow(dead_code, unused_imports)]
#[path = "../../tests/pipeline/day.rs"]
mod day;
#[allow(dead_code, unused_imports)]
#[path = "../../tests/pipeline/fresh_first.rs"]
mod fresh_first;
#[allow(dead_code, unused_imports)]
#[path = "../../tests/pipeline/harness.rs"]
mod harness;

mod capture;
mod compaction;
mod fresh;
mod integrity;
mod retry;
mod search;
mod tags;
mod worker;

use capture::{capture, peers};
use compaction::compaction;
use fresh::fresh;
use integrity::integrity;
use retry::retry;
use search::search;
use tags::{rename, tags};
use worker::worker;

use inkling::configuration::Settings;
use inkling::domain::NoteBody;
use std::path::Path;
use std::time::Duration;

/// The tests' settings, with the log quiet.
fn settings(dir: &Path, extra: &[(&str, &str)]) -> Settings {
    let mut env = vec![("INKLING_LOG__LEVEL", "error")];
    env.extend_from_slice(extra);
    service::test_settings(dir, &env)
}

fn body(i: usize) -> NoteBody {
    NoteBody::parse(
        format!("benchmark note {i}: a short thought, typed quickly"),
        65536,
    )
    .expect("body")
}

/// p50, p99 and max of a set of durations, in ms.
fn percentiles(mut samples: Vec<Duration>) -> (f64, f64, f64) {
    samples.sort();
    let at = |q: f64| samples[((samples.len() as f64 - 1.0) * q).round() as usize];
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    (
        ms(at(0.5)),
        ms(at(0.99)),
        ms(*samples.last().unwrap_or(&Duration::ZERO)),
    )
}

fn report(what: &str, samples: Vec<Duration>, total: Duration) {
    let n = samples.len();
    let (p50, p99, max) = percentiles(samples);
    println!(
        "  {what:<40} p50 {p50:6.2} ms  p99 {p99:6.2} ms  max {max:7.2} ms  {:7.0}/s",
        n as f64 / total.as_secs_f64()
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if !args.iter().any(|a| a == "--bench") {
        return;
    }
    let only = args.iter().skip(1).find(|a| !a.starts_with('-')).cloned();
    let wants = |name: &str| only.as_deref().is_none_or(|o| o == name);
    if wants("fresh") {
        // On a paused runtime of its own, before the real-time sections' system.
        fresh();
    }
    actix_rt::System::new().block_on(async move {
        if wants("capture") {
            capture().await;
        }
        if wants("retry") {
            retry().await;
        }
        if wants("worker") {
            worker().await;
        }
        if wants("tags") {
            tags().await;
        }
        if wants("search") {
            search().await;
        }
        if wants("integrity") {
            integrity().await;
        }
        if wants("compaction") {
            compaction().await;
        }
        if wants("peers") {
            peers().await;
        }
        if wants("rename") {
            rename().await;
        }
    });
}
