//! The service's hot paths, measured against their own floor (docs/PERFORMANCE.md).
//!
//! Run: `cargo bench --bench pipeline` (release build; ~1–2 minutes on 2 cores).
//! Sections (run one with `cargo bench --bench pipeline -- capture|retry|worker`):
//! - capture: p50/p99 latency and throughput of `POST /api/notes` with 8 concurrent
//!   clients, 2,000 notes, durable commits; split into SQLite commit, actor hop, HTTP;
//! - retry: retry-all over 100,000 failed notes end to end (HTTP) against the same SQL
//!   run raw on a copy of the database;
//! - worker: notes per second through the whole pipeline with an instant fake provider
//!   against a loop that calls the same provider and commits the same rows.
//!
//! Under `cargo test` (no `--bench` argument) it does nothing.

#[path = "../tests/support/fake_ollama.rs"]
mod fake_ollama;
#[path = "../tests/support/ports.rs"]
mod ports;
#[path = "../tests/support/service.rs"]
mod service;

use std::path::Path;
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use inkling::actors::repository::{CaptureNote, RepositoryActor};
use inkling::ai::ollama::OllamaClient;
use inkling::ai::EnrichmentProvider;
use inkling::clock::SystemClock;
use inkling::configuration::Settings;
use inkling::domain::NoteBody;
use inkling::services::Services;
use inkling::storage::Store;

const CAPTURES: usize = 2_000;
const CLIENTS: usize = 8;
const FAILED_NOTES: usize = 100_000;
const WORKER_NOTES: usize = 2_000;

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

async fn capture() {
    println!("capture: {CAPTURES} notes, durable commits (WAL, synchronous=FULL)");

    // 1. The floor: one SQLite transaction per note, straight on the store.
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("inkling.db"), 30).unwrap();
    let mut samples = Vec::with_capacity(CAPTURES);
    let started = Instant::now();
    for i in 0..CAPTURES {
        let t = Instant::now();
        store.capture(&body(i), Utc::now()).unwrap();
        samples.push(t.elapsed());
    }
    report("SQLite commit (Store::capture)", samples, started.elapsed());

    // 2. Plus the hop to the repository's thread and back.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("inkling.db");
    let hub = inkling::actors::mailbox::Mailbox::from(actix::Actor::start(
        inkling::actors::hub::Hub::default(),
    ));
    let repository = RepositoryActor::start(Store::open(&path, 30).unwrap(), path, 30, hub);
    let mut samples = Vec::with_capacity(CAPTURES);
    let started = Instant::now();
    for i in 0..CAPTURES {
        let t = Instant::now();
        repository
            .send(CaptureNote {
                body: body(i),
                now: Utc::now(),
            })
            .await
            .unwrap()
            .unwrap();
        samples.push(t.elapsed());
    }
    report("+ actor hop (RepositoryActor)", samples, started.elapsed());

    // 3. The whole service: HTTP, token check, inbox use case, telemetry, worker enqueue.
    let dir = tempfile::tempdir().unwrap();
    let s = settings(dir.path(), &[]);
    let service = service::start_service(&s, Arc::new(SystemClock)).await;
    let url = format!("{}/api/notes", service.address);
    let (handle, token) = (service.handle, service.token);
    let started = Instant::now();
    let clients: Vec<_> = (0..CLIENTS)
        .map(|c| {
            let (url, token) = (url.clone(), token.clone());
            actix_rt::spawn(async move {
                let client = awc::Client::builder()
                    .timeout(Duration::from_secs(30))
                    .finish();
                let mut samples = Vec::new();
                for i in 0..CAPTURES / CLIENTS {
                    let t = Instant::now();
                    let response = client
                        .post(&url)
                        .bearer_auth(&token)
                        .send_json(&serde_json::json!({ "body": format!("client {c} note {i}") }))
                        .await
                        .unwrap();
                    assert_eq!(response.status(), 201);
                    samples.push(t.elapsed());
                }
                samples
            })
        })
        .collect();
    let mut samples = Vec::new();
    for client in clients {
        samples.extend(client.await.unwrap());
    }
    report(
        &format!("+ HTTP, {CLIENTS} concurrent clients (end to end)"),
        samples,
        started.elapsed(),
    );
    handle.stop(true).await;
}

async fn retry() {
    println!("retry-all: {FAILED_NOTES} failed notes");
    let dir = tempfile::tempdir().unwrap();
    let s = settings(dir.path(), &[]);
    let path = s.database_path();
    drop(Store::open(&path, 30).unwrap()); // schema
    {
        let mut conn = rusqlite::Connection::open(&path).unwrap();
        let tx = conn.transaction().unwrap();
        {
            let mut insert = tx
                .prepare(
                    "INSERT INTO notes (id, body, ai_status, ai_error, created_at, updated_at)
                     VALUES (?1, ?2, 'failed', 'schema: bad answer', ?3, ?3)",
                )
                .unwrap();
            let at = inkling::domain::timestamp(Utc::now());
            for i in 0..FAILED_NOTES {
                insert
                    .execute((uuid::Uuid::now_v7().to_string(), format!("note {i}"), &at))
                    .unwrap();
            }
        }
        tx.commit().unwrap();
    }
    let copy = dir.path().join("copy.db");
    std::fs::copy(&path, &copy).unwrap();

    // The same statements, raw, on the copy.
    let mut conn = rusqlite::Connection::open(&copy).unwrap();
    conn.pragma_update(None, "journal_mode", "WAL").unwrap();
    conn.pragma_update(None, "synchronous", "FULL").unwrap();
    let now = inkling::domain::timestamp(Utc::now());
    let started = Instant::now();
    let tx = conn.transaction().unwrap();
    let ids: Vec<String> = tx
        .prepare(inkling::storage::store::REQUEUE_FAILED_SQL)
        .unwrap()
        .query_map([&now], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    tx.execute(inkling::storage::store::INSERT_REQUEUED_JOBS_SQL, [&now])
        .unwrap();
    tx.commit().unwrap();
    let raw = started.elapsed();
    assert_eq!(ids.len(), FAILED_NOTES);

    // End to end: `inkling retry-failed` is this request.
    let service = service::start_service(&s, Arc::new(SystemClock)).await;
    let url = format!("{}/api/inbox/retry-all-failed", service.address);
    let (handle, token) = (service.handle, service.token);
    let client = awc::Client::builder()
        .timeout(Duration::from_secs(60))
        .finish();
    let started = Instant::now();
    let mut response = client.post(&url).bearer_auth(&token).send().await.unwrap();
    let answer: serde_json::Value = response.json().await.unwrap();
    let end_to_end = started.elapsed();
    assert_eq!(answer["count"], FAILED_NOTES);
    println!(
        "  raw SQL on a copy                         {:8.1} ms",
        raw.as_secs_f64() * 1000.0
    );
    println!(
        "  retry-all over HTTP (end to end)          {:8.1} ms  ({:.2}x raw)",
        end_to_end.as_secs_f64() * 1000.0,
        end_to_end.as_secs_f64() / raw.as_secs_f64()
    );
    handle.stop(true).await;
}

async fn worker() {
    println!("worker: {WORKER_NOTES} notes, an instant fake provider on loopback");
    let fake = fake_ollama::FakeOllama::start_new().await;

    // The floor: call the provider and commit the same rows, in a plain loop.
    let dir = tempfile::tempdir().unwrap();
    let s = settings(dir.path(), &[("INKLING_OLLAMA__URL", &fake.url())]);
    let mut store = Store::open(&s.database_path(), 30).unwrap();
    let ids: Vec<String> = (0..WORKER_NOTES)
        .map(|i| store.capture(&body(i), Utc::now()).unwrap().id)
        .collect();
    let client = OllamaClient::new(&s.ollama);
    let started = Instant::now();
    for (i, id) in ids.iter().enumerate() {
        let enrichment = client.enrich(body(i).as_str()).await.unwrap();
        store.save_enrichment(id, &enrichment, Utc::now()).unwrap();
    }
    let loop_rate = WORKER_NOTES as f64 / started.elapsed().as_secs_f64();
    drop(store);

    // The pipeline: the same notes waiting in the queue; the actors do the rest.
    let dir = tempfile::tempdir().unwrap();
    let s = settings(dir.path(), &[("INKLING_OLLAMA__URL", &fake.url())]);
    let path = s.database_path();
    let mut store = Store::open(&path, 30).unwrap();
    for i in 0..WORKER_NOTES {
        store.capture(&body(i), Utc::now()).unwrap();
    }
    drop(store);
    let reader = rusqlite::Connection::open(&path).unwrap();
    let started = Instant::now();
    let provider = Rc::new(OllamaClient::new(&s.ollama));
    let store = Store::open(&path, 30).unwrap();
    let _services = Services::start(&s, Arc::new(SystemClock), store, path.clone(), provider)
        .expect("the services start");
    loop {
        let done: i64 = reader
            .query_row(
                "SELECT COUNT(*) FROM notes WHERE ai_status = 'done'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        if done as usize == WORKER_NOTES {
            break;
        }
        actix_rt::time::sleep(Duration::from_millis(5)).await;
    }
    let pipeline_rate = WORKER_NOTES as f64 / started.elapsed().as_secs_f64();
    println!("  loop: provider call + commit              {loop_rate:8.0} notes/s");
    println!(
        "  pipeline: worker, repository, telemetry   {pipeline_rate:8.0} notes/s  ({:.2}x the loop)",
        pipeline_rate / loop_rate
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if !args.iter().any(|a| a == "--bench") {
        return;
    }
    let only = args.iter().skip(1).find(|a| !a.starts_with('-')).cloned();
    let wants = |name: &str| only.as_deref().is_none_or(|o| o == name);
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
    });
}
