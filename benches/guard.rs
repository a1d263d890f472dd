//! The guard (issue #30 point 4): the figures a person feels, each next to SQLite's own
//! floor measured in the same process, printed as `GUARD <name> <value>` lines for
//! `scripts/bench-guard.py`, which runs this file built from the last release and
//! from the current tree, alternately, and prints their ratios (docs/PERFORMANCE.md,
//! "The guard").
//!
//! Run alone: `cargo bench --bench guard` (release build; about a minute).
//! - raw commit: one writer, WAL, `synchronous=FULL`, a note-sized row per transaction;
//! - capture: `POST /api/notes`, 8 clients on a thread of their own, durable;
//! - save: an AI answer saved (`Store::save_enrichment`) at 100,000 tagged notes, with
//!   its durable commit and without the fsync (the save's own work);
//! - search: one- and two-word queries at the same 100,000 notes, `GET /api/notes?q=`
//!   end to end, against the bare FTS5 query (BM25's top 50 of the bodies).
//!
//! It uses only what every release since the search index split has: `Store::open`,
//! `import`, `capture`, `save_enrichment` and the test service of `tests/support`.
//! The notes are built from JSON so that a field added to `Note` later does not stop
//! it from building against an older release. Under `cargo test` it does nothing.

#[path = "../tests/support/ports.rs"]
mod ports;
#[path = "../tests/support/service.rs"]
mod service;

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use inkling::clock::SystemClock;
use inkling::configuration::Settings;
use inkling::domain::{Enrichment, ListFilter, Note, NoteBody};
use inkling::storage::Store;

const RAW_COMMITS: usize = 2_000;
const CLIENTS: usize = 8;
const CAPTURES_PER_CLIENT: usize = 250;
const NOTES: usize = 100_000;
const SAVES: usize = 200;
const SEARCH_ROUNDS: usize = 20;
/// Words of the search notes, each in one note in `every` (as `benches/pipeline/search.rs`).
const WORDS: [(&str, usize); 6] = [
    ("tomato", 2),
    ("garden", 5),
    ("meeting", 10),
    ("invoice", 50),
    ("passport", 1_000),
    ("zephyr", 10_000),
];
const QUERIES: [&str; 9] = [
    "tomato",
    "garden",
    "meeting",
    "invoice",
    "passport",
    "zephyr",
    "tomato garden",
    "tomato invoice",
    "tomato zephyr",
];

fn guard(name: &str, value: f64) {
    println!("GUARD {name} {value:.4}");
}

/// p50 and p99 of samples, in ms.
fn percentiles(mut samples: Vec<Duration>) -> (f64, f64) {
    samples.sort();
    let at = |q: f64| samples[((samples.len() as f64 - 1.0) * q).round() as usize];
    (
        at(0.5).as_secs_f64() * 1000.0,
        at(0.99).as_secs_f64() * 1000.0,
    )
}

fn report(name: &str, samples: Vec<Duration>, total: Option<Duration>) {
    let count = samples.len();
    let (p50, p99) = percentiles(samples);
    guard(&format!("{name}_p50_ms"), p50);
    guard(&format!("{name}_p99_ms"), p99);
    if let Some(total) = total {
        guard(&format!("{name}_per_s"), count as f64 / total.as_secs_f64());
    }
}

/// How many messages the repository has received (the service's own counters).
fn repository_received() -> u64 {
    inkling::actors::mailbox_stats::snapshot()
        .get("repository")
        .map_or(0, |counters| counters.received)
}

fn settings(dir: &Path) -> Settings {
    service::test_settings(dir, &[("INKLING_LOG__LEVEL", "error")])
}

/// SQLite's own durable commit of a note-sized row, one writer: the floor of a capture.
fn raw_commit() {
    let dir = tempfile::tempdir().unwrap();
    let conn = rusqlite::Connection::open(dir.path().join("raw.db")).unwrap();
    conn.pragma_update(None, "journal_mode", "WAL").unwrap();
    conn.pragma_update(None, "synchronous", "FULL").unwrap();
    conn.execute_batch(
        "CREATE TABLE notes (id TEXT PRIMARY KEY, body TEXT NOT NULL, created_at TEXT NOT NULL)",
    )
    .unwrap();
    let mut samples = Vec::with_capacity(RAW_COMMITS);
    let started = Instant::now();
    for i in 0..RAW_COMMITS {
        let at = Instant::now();
        conn.execute(
            "INSERT INTO notes (id, body, created_at) VALUES (?1, ?2, ?3)",
            (
                uuid::Uuid::now_v7().to_string(),
                format!("client {} note {i}", i % CLIENTS),
                inkling::domain::timestamp(Utc::now()),
            ),
        )
        .unwrap();
        samples.push(at.elapsed());
    }
    report("raw_commit", samples, Some(started.elapsed()));
}

/// Captures by 8 clients over HTTP, durable; the clients on a thread of their own, as
/// other processes would be.
async fn capture() {
    let dir = tempfile::tempdir().unwrap();
    let service = service::start_service(&settings(dir.path()), Arc::new(SystemClock)).await;
    let url = format!("{}/api/notes", service.address);
    let token = service.token.clone();
    let messages_before = repository_received();
    let clients = std::thread::spawn(move || {
        actix_rt::System::new().block_on(async move {
            let started = Instant::now();
            let tasks: Vec<_> = (0..CLIENTS)
                .map(|c| {
                    let (url, token) = (url.clone(), token.clone());
                    actix_rt::spawn(async move {
                        let client = awc::Client::builder()
                            .timeout(Duration::from_secs(30))
                            .finish();
                        let mut samples = Vec::new();
                        for i in 0..CAPTURES_PER_CLIENT {
                            let at = Instant::now();
                            let mut response = client
                                .post(&url)
                                .bearer_auth(&token)
                                .send_json(
                                    &serde_json::json!({ "body": format!("client {c} note {i}") }),
                                )
                                .await
                                .unwrap();
                            assert_eq!(response.status(), 201);
                            // Read the answer as a client does: an unread body keeps
                            // the connection from being used again, and each capture
                            // then paid for a new one.
                            response.body().await.unwrap();
                            samples.push(at.elapsed());
                        }
                        samples
                    })
                })
                .collect();
            let mut samples = Vec::new();
            for task in tasks {
                samples.extend(task.await.unwrap());
            }
            (samples, started.elapsed())
        })
    });
    // The service's actors run on this thread: wait without blocking it.
    while !clients.is_finished() {
        actix_rt::time::sleep(Duration::from_millis(5)).await;
    }
    let (samples, took) = clients.join().unwrap();
    // Messages the repository received per capture: one per commit since captures
    // share one (src/actors/repository/group_commit.rs), so captures per message is
    // about the notes a commit carried. Printed, not guarded.
    let messages = repository_received() - messages_before;
    println!(
        "capture: {:.2} notes per message to the repository",
        samples.len() as f64 / messages.max(1) as f64
    );
    report("capture", samples, Some(took));
    service.handle.stop(true).await;
}

/// 100,000 done notes with a title, a summary and three tags each (a few tags on many
/// notes, most on a few), their bodies carrying the search words.
fn notes() -> Vec<Note> {
    let at = inkling::domain::timestamp(Utc::now());
    (0..NOTES)
        .map(|i| {
            let words: Vec<&str> = WORDS
                .iter()
                .enumerate()
                .filter(|(k, (_, every))| (i + k * 7) % every == 0)
                .map(|(_, (word, _))| *word)
                .collect();
            let tags: Vec<String> = (0..3)
                .map(|j| {
                    let x = ((i * 7 + j * 13) % 1_000 + 1) as f64 / 1_000.0;
                    format!("topic {}", (2_000f64.powf(x) as usize).min(2_000))
                })
                .collect();
            serde_json::from_value(serde_json::json!({
                "id": "",
                "body": format!(
                    "note {i}: a thought of ordinary length about {} and the rest of the day",
                    words.join(" and ")
                ),
                "title": format!("Note {i}"),
                "summary": "A summary.",
                "tags": tags,
                "ai_status": "done",
                "ai_error": null,
                "created_at": at,
                "updated_at": at,
                "deleted_at": null,
                "kept_at": null,
            }))
            .unwrap()
        })
        .collect()
}

/// Searches over HTTP at 100,000 notes, then answers saved there.
async fn search_and_save() {
    let dir = tempfile::tempdir().unwrap();
    let s = settings(dir.path());
    let path = s.database_path();
    {
        let mut store = Store::open(&path, 30).unwrap();
        store.import(&notes(), Utc::now()).unwrap();
    }

    let conn = rusqlite::Connection::open(&path).unwrap();
    let mut raw = conn
        .prepare(
            "SELECT rowid FROM search_bodies WHERE search_bodies MATCH ?1 \
             ORDER BY bm25(search_bodies) LIMIT 50",
        )
        .unwrap();
    let service = service::start_service(&s, Arc::new(SystemClock)).await;
    let client = awc::Client::builder()
        .timeout(Duration::from_secs(60))
        .finish();
    // Every start checks the file (`PRAGMA quick_check`, a second or more at 100,000
    // notes) while reads go ahead: a write waits for it, so the searches below are
    // measured after it, not beside it.
    let warm_up = client
        .post(format!("{}/api/notes", service.address))
        .bearer_auth(&service.token)
        .send_json(&serde_json::json!({ "body": "after the check at start" }))
        .await
        .unwrap();
    assert_eq!(warm_up.status(), 201);
    let (mut raw_times, mut times) = (Vec::new(), Vec::new());
    for text in QUERIES {
        let expression: Vec<String> = text
            .split_whitespace()
            .map(|word| format!("\"{word}\""))
            .collect();
        let mut own = Vec::new();
        for _ in 0..SEARCH_ROUNDS {
            let at = Instant::now();
            let rows = raw
                .query_map([expression.join(" ")], |r| r.get::<_, i64>(0))
                .unwrap()
                .count();
            raw_times.push(at.elapsed());

            let url = format!(
                "{}/api/notes?q={}&limit=50",
                service.address,
                text.replace(' ', "+")
            );
            let at = Instant::now();
            let mut response = client
                .get(&url)
                .bearer_auth(&service.token)
                .send()
                .await
                .unwrap();
            let body = response.body().limit(16 << 20).await.unwrap();
            own.push(at.elapsed());
            let hits: Vec<serde_json::Value> = serde_json::from_slice(&body).unwrap();
            assert_eq!(hits.len(), rows, "{text}");
        }
        let (_, p99) = percentiles(own.clone());
        guard(&format!("search_p99_ms[{}]", text.replace(' ', "+")), p99);
        times.extend(own);
    }
    report("search", times, None);
    report("raw_fts_bm25", raw_times, None);
    service.handle.stop(true).await;
    let _ = service.stopped.await;
    drop(raw);
    drop(conn);

    let mut store = Store::open(&path, 30).unwrap();
    let enrichment: Enrichment = serde_json::from_value(serde_json::json!({
        "title": "A title",
        "tags": ["Topic-1", "topic 17", "brand new"],
        "summary": "A summary.",
        "read_chars": null,
    }))
    .unwrap();
    let body =
        |i: usize| NoteBody::parse(format!("benchmark note {i}: a short thought"), 65536).unwrap();
    for durable in [true, false] {
        if !durable {
            // What the save itself costs, without the fsync that a slow disk puts on
            // top of every commit alike.
            store
                .connection()
                .pragma_update(None, "synchronous", "OFF")
                .unwrap();
        }
        let ids: Vec<String> = (0..SAVES)
            .map(|i| store.capture(&body(i), Utc::now()).unwrap().id)
            .collect();
        let mut saves = Vec::new();
        for (i, id) in ids.iter().enumerate() {
            let at = Instant::now();
            store
                .save_enrichment(id, body(i).as_str(), &enrichment, Utc::now())
                .unwrap();
            saves.push(at.elapsed());
        }
        report(if durable { "save" } else { "save_no_fsync" }, saves, None);
    }
    // The list's first page at the same notes, for scale (nothing to search).
    let mut lists = Vec::new();
    for _ in 0..SEARCH_ROUNDS {
        let at = Instant::now();
        store
            .list(&ListFilter::default(), Utc::now())
            .map(|notes| notes.len())
            .unwrap();
        lists.push(at.elapsed());
    }
    report("list", lists, None);
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if !args.iter().any(|a| a == "--bench") {
        return;
    }
    raw_commit();
    actix_rt::System::new().block_on(async {
        capture().await;
        search_and_save().await;
    });
}
