//! Where a capture's CPU goes (issue #38 point 3), in two parts, each printed as a
//! table (docs/PERFORMANCE.md, "Capture"):
//!
//! 1. the repository's own work: `Store::capture_all` in groups of 4 (what 8 clients
//!    give), 1,500 groups on a fresh database, this thread's CPU time a note: with the
//!    search entries written behind the captures as today (`index_if_behind` after each
//!    group, as the repository does), and with them written in each commit as before
//!    migration 0015 (its insert trigger put back);
//! 2. the whole service: 8 clients capturing over HTTP, 1,000 notes each, 3 rounds,
//!    each thread's on-CPU time a note (`/proc/self/task/*/schedstat`; the clients run
//!    on a thread that ends with its round and are not counted). A profiler lost most
//!    of its samples on this VM; the kernel's per-thread counters do not.
//!
//! Run: `cargo bench --bench capture_parts` (release build; about a minute). Under
//! `cargo test` it does nothing.

#[path = "../tests/support/ports.rs"]
mod ports;
#[path = "../tests/support/service.rs"]
mod service;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use inkling::clock::SystemClock;
use inkling::domain::{NoteBody, NoteKind};
use inkling::storage::Store;

const GROUP: usize = 4;
const GROUPS: usize = 1_500;
const CLIENTS: usize = 8;
const PER_CLIENT: usize = 1_000;

/// Migration 0006's insert trigger: a note's search entries written in its capture's
/// transaction, as before migration 0015.
const ENTRIES_IN_EACH_COMMIT: &str = "
DROP TRIGGER search_after_note_insert;
CREATE TRIGGER search_after_note_insert AFTER INSERT ON notes BEGIN
    INSERT INTO note_search_keys (note_id) VALUES (new.id);
    INSERT INTO search_titles (rowid, title)
    VALUES ((SELECT key FROM note_search_keys WHERE note_id = new.id), coalesce(new.title, ''));
    INSERT INTO search_bodies (rowid, body)
    VALUES ((SELECT key FROM note_search_keys WHERE note_id = new.id), new.body);
END;";

/// This thread's CPU time, in µs.
fn thread_cpu_us() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec it is given and nothing else.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 * 1e6 + t.tv_nsec as f64 / 1e3
}

/// Part 1: the store alone, CPU µs a note and wall µs a note.
fn store_alone(name: &str, sql: &str) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("inkling.db");
    drop(Store::open(&path, 30).unwrap());
    if !sql.is_empty() {
        rusqlite::Connection::open(&path)
            .unwrap()
            .execute_batch(sql)
            .unwrap();
    }
    let mut store = Store::open(&path, 30).unwrap();
    let (started, cpu) = (Instant::now(), thread_cpu_us());
    for group in 0..GROUPS {
        let bodies: Vec<NoteBody> = (0..GROUP)
            .map(|c| NoteBody::parse(format!("client {c} note {group}"), 65_536).unwrap())
            .collect();
        let now = Utc::now();
        let notes: Vec<_> = bodies.iter().map(|b| (b, NoteKind::Note, now)).collect();
        store.capture_all(&notes).unwrap();
        store.index_if_behind();
    }
    let notes = (GROUPS * GROUP) as f64;
    println!(
        "| {name} | {:.1} | {:.1} |",
        (thread_cpu_us() - cpu) / notes,
        started.elapsed().as_secs_f64() * 1e6 / notes
    );
}

/// Every thread of this process: its id, its name, its on-CPU time in µs.
fn threads() -> BTreeMap<String, (String, f64)> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir("/proc/self/task").unwrap() {
        let path = entry.unwrap().path();
        let tid = path.file_name().unwrap().to_string_lossy().to_string();
        let name = std::fs::read_to_string(path.join("comm")).unwrap_or_default();
        let ns: f64 = std::fs::read_to_string(path.join("schedstat"))
            .unwrap_or_default()
            .split_whitespace()
            .next()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0.0);
        out.insert(tid, (name.trim().to_string(), ns / 1000.0));
    }
    out
}

/// Part 2: captures over HTTP, each thread's CPU a note.
async fn per_thread() {
    let dir = tempfile::tempdir().unwrap();
    let settings = service::test_settings(dir.path(), &[("INKLING_LOG__LEVEL", "error")]);
    let service = service::start_service(&settings, Arc::new(SystemClock)).await;
    let url = format!("{}/api/notes", service.address);
    for round in 0..3 {
        let before = threads();
        let (url, token) = (url.clone(), service.token.clone());
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
                            for i in 0..PER_CLIENT {
                                let body = format!("client {c} note {i} round {round}");
                                let mut response = client
                                    .post(&url)
                                    .bearer_auth(&token)
                                    .send_json(&serde_json::json!({ "body": body }))
                                    .await
                                    .unwrap();
                                assert_eq!(response.status(), 201);
                                response.body().await.unwrap();
                            }
                        })
                    })
                    .collect();
                for task in tasks {
                    task.await.unwrap();
                }
                started.elapsed()
            })
        });
        // The service's actors run on this thread: wait without blocking it.
        while !clients.is_finished() {
            actix_rt::time::sleep(Duration::from_millis(5)).await;
        }
        let took = clients.join().unwrap();
        let notes = (CLIENTS * PER_CLIENT) as f64;
        println!(
            "\nround {round}: {:.0} notes/s; CPU µs a note by thread (id, name):",
            notes / took.as_secs_f64()
        );
        let mut total = 0.0;
        for (tid, (name, us)) in threads() {
            let spent = us - before.get(&tid).map_or(0.0, |(_, was)| *was);
            total += spent;
            if spent / notes >= 0.5 {
                println!("  {tid:>8} {name:<16} {:6.1}", spent / notes);
            }
        }
        println!("  {:>8} {:<16} {:6.1}", "", "all", total / notes);
    }
    service.handle.stop(true).await;
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    println!("| the store alone, groups of {GROUP} | CPU µs a note | wall µs a note |");
    println!("|---|---:|---:|");
    for _ in 0..2 {
        store_alone("search entries behind (today)", "");
        store_alone("search entries in each commit", ENTRIES_IN_EACH_COMMIT);
    }
    actix_rt::System::new().block_on(per_thread());
}
