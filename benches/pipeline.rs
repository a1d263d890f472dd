//! The service's hot paths, measured against their own floor (docs/PERFORMANCE.md).
//!
//! Run: `cargo bench --bench pipeline` (release build; ~1–2 minutes on 2 cores).
//! Sections (run one with `cargo bench --bench pipeline -- capture|retry|worker|search|tags|rename|integrity|peers`):
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
//!
//! - peers: the look-up of a new connection's owner in `/proc/net/tcp` (each accepted
//!   connection pays one), with few and with 500 other connections open on the
//!   machine, and captures by 8 clients that open a new connection for each (as the CLI
//!   does), so every capture pays it.
//!
//! Under `cargo test` (no `--bench` argument) it does nothing.

#[path = "../tests/support/fake_http.rs"]
mod fake_http;
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
use inkling::ai::{CallPlan, Capabilities, Chat};
use inkling::clock::SystemClock;
use inkling::configuration::Settings;
use inkling::domain::NoteBody;
use inkling::services::Services;
use inkling::storage::Store;

const CAPTURES: usize = 2_000;
const CLIENTS: usize = 8;
const FAILED_NOTES: usize = 100_000;
const WORKER_NOTES: usize = 2_000;
const SEARCH_NOTES: usize = 100_000;
/// The search notes' words, each in one note in `every` (tomato in half of them,
/// zephyr in one in 10,000): the one-word queries, from a word in half of all notes
/// to one in a handful, as a person's notes have both.
const SEARCH_WORDS: [(&str, usize); 12] = [
    ("tomato", 2),
    ("garden", 5),
    ("meeting", 10),
    ("plumber", 20),
    ("invoice", 50),
    ("recipe", 100),
    ("birthday", 200),
    ("dentist", 500),
    ("passport", 1_000),
    ("chimney", 2_000),
    ("saffron", 5_000),
    ("zephyr", 10_000),
];
/// Two-word queries: two common words (in a tenth of the notes together), a common
/// word and a rarer one always with it, a common word and a rare one never with it.
const SEARCH_PAIRS: [&str; 3] = ["tomato garden", "tomato invoice", "tomato zephyr"];
/// Searches per query and way (raw, store, HTTP).
const SEARCH_ROUNDS: usize = 20;

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
    capture_over_http(
        &format!("+ HTTP, {CLIENTS} concurrent clients (end to end)"),
        Connections::Kept,
    )
    .await;
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
        // As the worker does: the tags in use for the prompt, the call, the save.
        let tags_in_use: Vec<String> = store
            .tags(Some(inkling::tags::VOCABULARY_IN_PROMPT))
            .unwrap()
            .into_iter()
            .map(|t| t.tag)
            .collect();
        let text = body(i);
        let plan = CallPlan::first_try(
            text.as_str(),
            &tags_in_use,
            s.ollama.request_timeout(),
            s.ollama.num_ctx,
        );
        let enrichment = client.enrich(plan).await.result.unwrap();
        store
            .save_enrichment(id, text.as_str(), &enrichment, Utc::now())
            .unwrap();
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
    let provider = Capabilities::of_one_server(OllamaClient::new(&s.ollama));
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

async fn search() {
    println!(
        "search: one- and two-word queries over {SEARCH_NOTES} notes (limit 50), {SEARCH_ROUNDS} of each"
    );
    let dir = tempfile::tempdir().unwrap();
    let s = settings(dir.path(), &[]);
    let path = s.database_path();
    drop(Store::open(&path, 30).unwrap()); // schema and the search index's triggers
    {
        let mut conn = rusqlite::Connection::open(&path).unwrap();
        let tx = conn.transaction().unwrap();
        {
            let mut insert = tx
                .prepare(
                    "INSERT INTO notes (id, body, ai_status, created_at, updated_at)
                     VALUES (?1, ?2, 'done', ?3, ?3)",
                )
                .unwrap();
            let at = inkling::domain::timestamp(Utc::now());
            for i in 0..SEARCH_NOTES {
                let words: Vec<&str> = SEARCH_WORDS
                    .iter()
                    .enumerate()
                    .filter(|(k, (_, every))| (i + k * 7) % every == 0)
                    .map(|(_, (word, _))| *word)
                    .collect();
                let body = format!(
                    "note {i}: a thought of ordinary length about {} and the rest of the day",
                    words.join(" and ")
                );
                insert
                    .execute((uuid::Uuid::now_v7().to_string(), body, &at))
                    .unwrap();
            }
        }
        tx.commit().unwrap();
    }

    // The bare FTS5 query: the same match, rank and limit, no join, no filter, no
    // snippet (these notes have no title and no tag: the bodies' index is all the
    // search reads). Then the store (Store::search) and the route (`inkling search
    // WORD`).
    let conn = rusqlite::Connection::open(&path).unwrap();
    let mut raw = conn
        .prepare(
            "SELECT rowid FROM search_bodies WHERE search_bodies MATCH ?1 \
             ORDER BY bm25(search_bodies) LIMIT 50",
        )
        .unwrap();
    let store = Store::open(&path, 30).unwrap();
    let filter = inkling::domain::ListFilter::default();
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
    println!(
        "  query             in notes   raw p50/p99 ms   store p50/p99 ms   HTTP p50/p99 ms   HTTP/raw p99"
    );
    let queries = SEARCH_WORDS
        .iter()
        .map(|(word, _)| word.to_string())
        .chain(SEARCH_PAIRS.iter().map(|pair| pair.to_string()));
    let mut all = [Vec::new(), Vec::new(), Vec::new()];
    for text in queries {
        let expression = text
            .split_whitespace()
            .map(|word| format!("\"{word}\""))
            .collect::<Vec<_>>()
            .join(" ");
        let matching: i64 = conn
            .query_row(
                "SELECT COUNT(*) FROM search_bodies WHERE search_bodies MATCH ?1",
                [&expression],
                |r| r.get(0),
            )
            .unwrap();
        let mut times = [Vec::new(), Vec::new(), Vec::new()];
        for _ in 0..SEARCH_ROUNDS {
            let at = Instant::now();
            let rows: Vec<i64> = raw
                .query_map([&expression], |r| r.get(0))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            times[0].push(at.elapsed());

            let query = inkling::storage::SearchQuery::parse(&text).unwrap();
            let at = Instant::now();
            let hits = store.search(&query, &filter, Utc::now()).unwrap();
            times[1].push(at.elapsed());
            assert_eq!(hits.len(), rows.len(), "{text}");

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
            times[2].push(at.elapsed());
            assert!(response.status().is_success(), "{text}");
            let answer: Vec<serde_json::Value> = serde_json::from_slice(&body).unwrap();
            assert_eq!(answer.len(), rows.len(), "{text}");
        }
        let [(r50, r99, _), (s50, s99, _), (h50, h99, _)] = times.clone().map(percentiles);
        println!(
            "  {text:<16} {matching:>8}   {r50:6.2} / {r99:6.2}   {s50:6.2} / {s99:6.2}     {h50:6.2} / {h99:6.2}    {:.2}x",
            h99 / r99
        );
        for (total, samples) in all.iter_mut().zip(times) {
            total.extend(samples);
        }
    }
    let [(_, r99, _), (_, s99, _), (_, h99, _)] = all.map(percentiles);
    println!(
        "  every query: p99 raw {r99:.2} ms, store {s99:.2} ms ({:.2}x), HTTP {h99:.2} ms ({:.2}x)",
        s99 / r99,
        h99 / r99
    );
    drop(store);
    service.handle.stop(true).await;
}

/// Notes and distinct tags of the tags benchmark.
const TAG_NOTES: usize = 100_000;
const DISTINCT_TAGS: usize = 2_000;
const TAG_ROUNDS: usize = 200;

/// [`TAG_NOTES`] done notes with three tags each (a few tags on many notes, most on a
/// few: tag k's share falls as 1/k), each body `tagged note {i}` then `filler`.
fn tagged_notes(filler: &str) -> Vec<inkling::domain::Note> {
    let pick = |i: usize, j: usize| {
        let x = ((i * 7 + j * 13) % 1_000 + 1) as f64 / 1_000.0;
        let k = ((DISTINCT_TAGS as f64).powf(x) as usize).min(DISTINCT_TAGS);
        format!("topic {k}")
    };
    let at = inkling::domain::timestamp(Utc::now());
    (0..TAG_NOTES)
        .map(|i| inkling::domain::Note {
            id: String::new(),
            body: format!("tagged note {i}{filler}"),
            title: Some(format!("Note {i}")),
            summary: Some("A summary.".into()),
            tags: {
                let mut tags: Vec<String> = (0..3).map(|j| pick(i, j)).collect();
                tags.dedup();
                tags
            },
            ai_status: inkling::domain::AiStatus::Done,
            ai_error: None,
            created_at: at.clone(),
            updated_at: at.clone(),
            deleted_at: None,
            kept_at: None,
            title_set_by_user: false,
            tags_set_by_user: false,
            ai_read_chars: None,
            edited_at: None,
        })
        .collect()
}

async fn tags() {
    println!(
        "tags: {TAG_NOTES} notes with 3 tags each out of {DISTINCT_TAGS}, {TAG_ROUNDS} rounds"
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("inkling.db");
    let mut store = Store::open(&path, 30).unwrap();
    let notes = tagged_notes("");
    store.import(&notes, Utc::now()).unwrap();
    let distinct = store.tags(None).unwrap().len();
    println!("  ({distinct} distinct tags in use)");

    let mut vocabulary = Vec::new();
    let started = Instant::now();
    for _ in 0..TAG_ROUNDS {
        let at = Instant::now();
        let top = store
            .tags(Some(inkling::tags::VOCABULARY_IN_PROMPT))
            .unwrap();
        vocabulary.push(at.elapsed());
        assert_eq!(top.len(), inkling::tags::VOCABULARY_IN_PROMPT);
    }
    report(
        "the prompt's 50 tags (Store::tags)",
        vocabulary,
        started.elapsed(),
    );

    let ids: Vec<String> = (0..TAG_ROUNDS)
        .map(|i| store.capture(&body(i), Utc::now()).unwrap().id)
        .collect();
    let enrichment = inkling::domain::Enrichment {
        title: "A title".into(),
        tags: vec!["Topic-1".into(), "topic 17".into(), "brand new".into()],
        summary: "A summary.".into(),
        read_chars: None,
    };
    let mut saves = Vec::new();
    let started = Instant::now();
    for (i, id) in ids.iter().enumerate() {
        let at = Instant::now();
        store
            .save_enrichment(id, body(i).as_str(), &enrichment, Utc::now())
            .unwrap();
        saves.push(at.elapsed());
    }
    report("save an answer, tags tidied", saves, started.elapsed());
    let mut captures = Vec::new();
    let started = Instant::now();
    for i in 0..TAG_ROUNDS {
        let at = Instant::now();
        store.capture(&body(i), Utc::now()).unwrap();
        captures.push(at.elapsed());
    }
    report("a capture, for scale", captures, started.elapsed());

    // The same without the commit's fsync, which on a slow disk hides everything else:
    // what the save itself costs (its statements, the search index's triggers and the
    // pages written to the WAL).
    store
        .connection()
        .pragma_update(None, "synchronous", "OFF")
        .unwrap();
    let ids: Vec<String> = (0..TAG_ROUNDS)
        .map(|i| store.capture(&body(i), Utc::now()).unwrap().id)
        .collect();
    let mut saves = Vec::new();
    let started = Instant::now();
    for (i, id) in ids.iter().enumerate() {
        let at = Instant::now();
        store
            .save_enrichment(id, body(i).as_str(), &enrichment, Utc::now())
            .unwrap();
        saves.push(at.elapsed());
    }
    report("save an answer, no fsync", saves, started.elapsed());
    let mut captures = Vec::new();
    let started = Instant::now();
    for i in 0..TAG_ROUNDS {
        let at = Instant::now();
        store.capture(&body(i), Utc::now()).unwrap();
        captures.push(at.elapsed());
    }
    report("a capture, no fsync", captures, started.elapsed());
}

/// Notes of the rename benchmark, and how many of them have the renamed tag.
const RENAME_NOTES: usize = 100_000;
const RENAMED_NOTES: usize = 20_000;

async fn rename() {
    use inkling::actors::repository::RenameTag;
    println!("rename: a tag on {RENAMED_NOTES} of {RENAME_NOTES} notes, captures meanwhile");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("inkling.db");
    let mut store = Store::open(&path, 30).unwrap();
    let at = inkling::domain::timestamp(Utc::now());
    let notes: Vec<inkling::domain::Note> = (0..RENAME_NOTES)
        .map(|i| inkling::domain::Note {
            id: String::new(),
            body: format!(
                "note {i}: a thought of ordinary length about the garden, the house and the rest of the day"
            ),
            title: Some(format!("A title for note {i}")),
            summary: Some("A summary.".into()),
            tags: {
                let mut tags = vec![format!("topic {}", i % 500), format!("area {}", i % 37)];
                if i % (RENAME_NOTES / RENAMED_NOTES) == 0 {
                    tags.push("gardening".into());
                }
                tags
            },
            ai_status: inkling::domain::AiStatus::Done,
            ai_error: None,
            created_at: at.clone(),
            updated_at: at.clone(),
            deleted_at: None,
            kept_at: None,
            title_set_by_user: false,
            tags_set_by_user: false,
            ai_read_chars: None,
            edited_at: None,
        })
        .collect();
    store.import(&notes, Utc::now()).unwrap();
    drop(notes);
    let hub = inkling::actors::mailbox::Mailbox::from(actix::Actor::start(
        inkling::actors::hub::Hub::default(),
    ));
    let repository = RepositoryActor::start(store, path.clone(), 30, hub);

    // One client capturing note after note for as long as the rename runs.
    let renaming = Rc::new(std::cell::Cell::new(true));
    let capturer = {
        let repository = repository.clone();
        let renaming = renaming.clone();
        actix_rt::spawn(async move {
            let mut samples = Vec::new();
            let mut i = 0;
            while renaming.get() {
                let at = Instant::now();
                repository
                    .send(CaptureNote {
                        body: body(i),
                        now: Utc::now(),
                    })
                    .await
                    .unwrap()
                    .unwrap();
                samples.push(at.elapsed());
                i += 1;
            }
            samples
        })
    };
    let (done, ended) = tokio::sync::oneshot::channel();
    let started = Instant::now();
    repository
        .send(RenameTag {
            from: "gardening".into(),
            to: "garden".into(),
            now: Utc::now(),
            done,
        })
        .await
        .unwrap()
        .unwrap();
    let renamed = ended.await.unwrap().unwrap();
    let took = started.elapsed();
    renaming.set(false);
    let captures = capturer.await.unwrap();
    assert_eq!(renamed.notes as usize, RENAMED_NOTES);
    println!(
        "  rename of {} notes through the repository: {:.2} s",
        renamed.notes,
        took.as_secs_f64()
    );
    report(
        &format!("{} captures meanwhile", captures.len()),
        captures,
        took,
    );

    // The same rename with nothing else to do, straight on the store.
    let mut store = Store::open(&path, 30).unwrap();
    let started = Instant::now();
    let back = store.rename_tag("garden", "gardening", Utc::now()).unwrap();
    println!(
        "  rename of {} notes alone (Store::rename_tag): {:.2} s",
        back.notes,
        started.elapsed().as_secs_f64()
    );
}

/// Drops the file's pages from the page cache (they are clean: nothing was written
/// since), so the next read comes from the disk, as at the first start after a boot.
fn drop_from_page_cache(path: &Path) {
    use std::os::fd::AsRawFd;
    let file = std::fs::File::open(path).unwrap();
    // SAFETY: a valid descriptor; advice only, it changes no data.
    let failed = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    assert_eq!(failed, 0, "posix_fadvise");
}

/// Fastest, median and slowest of a few samples, in ms.
fn spread(what: &str, mut samples: Vec<Duration>) {
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "  {what:<44} min {:7.1} ms  median {:7.1} ms  max {:7.1} ms",
        ms(samples[0]),
        ms(samples[samples.len() / 2]),
        ms(samples[samples.len() - 1])
    );
}

/// Starts of the check in each way.
const INTEGRITY_ROUNDS: usize = 5;

async fn integrity() {
    println!(
        "integrity: PRAGMA quick_check of {TAG_NOTES} tagged notes, {INTEGRITY_ROUNDS} rounds"
    );
    let dir = tempfile::tempdir().unwrap();
    let s = settings(dir.path(), &[]);
    let path = s.database_path();
    {
        let mut store = Store::open(&path, 30).unwrap();
        // Bodies of ordinary length (~300 characters): the check reads every page.
        let filler = ": ".to_owned() + &"a thought typed in passing, ".repeat(10);
        store.import(&tagged_notes(&filler), Utc::now()).unwrap();
        store.checkpoint().unwrap();
    }
    let size = std::fs::metadata(&path).unwrap().len();
    println!("  database: {:.1} MiB", size as f64 / (1 << 20) as f64);

    let check = |cold: bool| {
        let mut samples = Vec::new();
        for _ in 0..INTEGRITY_ROUNDS {
            if cold {
                drop_from_page_cache(&path);
            }
            let at = Instant::now();
            assert_eq!(Store::damage(&path).unwrap(), None);
            samples.push(at.elapsed());
        }
        samples
    };
    spread("quick_check, file in the page cache", check(false));
    spread("quick_check, file read from the disk", check(true));

    // A start on the file just dropped from the cache: `build` does not wait for the
    // check; the first capture does (its write waits for the verdict).
    let client = awc::Client::builder()
        .timeout(Duration::from_secs(60))
        .finish();
    let (mut built, mut captured) = (Vec::new(), Vec::new());
    for round in 0..INTEGRITY_ROUNDS {
        drop_from_page_cache(&path);
        let at = Instant::now();
        let service = service::start_service(&s, Arc::new(SystemClock)).await;
        built.push(at.elapsed());
        let response = client
            .post(format!("{}/api/notes", service.address))
            .bearer_auth(&service.token)
            .send_json(&serde_json::json!({ "body": format!("at start {round}") }))
            .await
            .unwrap();
        assert_eq!(response.status(), 201);
        captured.push(at.elapsed());
        service.handle.stop(true).await;
        let _ = service.stopped.await;
    }
    spread("start: until `build` returns (cold file)", built);
    spread("start: until the first capture is stored", captured);
}

/// Who is connecting: the owner look-up alone, then what it adds to a capture on a
/// connection of its own.
async fn peers() {
    use std::net::SocketAddr;
    use std::net::{TcpListener, TcpStream};
    let sockets = std::fs::read_to_string("/proc/net/tcp")
        .map(|table| table.lines().count().saturating_sub(1))
        .unwrap_or(0);
    println!("peers: the owner of a new connection ({sockets} IPv4 sockets on the machine)");
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let server = listener.local_addr().unwrap();
    let mut open = Vec::new();
    for others in [0usize, 500] {
        while open.len() < others {
            let client = TcpStream::connect(server).unwrap();
            let (accepted, _) = listener.accept().unwrap();
            open.push((client, accepted));
        }
        let client = TcpStream::connect(server).unwrap();
        let peer = client.local_addr().unwrap();
        let _accepted = listener.accept().unwrap();
        type LookUp = fn(SocketAddr, SocketAddr) -> std::io::Result<Option<u32>>;
        let ways: [(&str, LookUp); 2] = [
            ("netlink", inkling::socket_owner::client_owner),
            (
                "/proc/net/tcp",
                inkling::socket_owner::client_owner_from_tables,
            ),
        ];
        for (way, look_up) in ways {
            let mut samples = Vec::new();
            let started = Instant::now();
            for _ in 0..500 {
                let t = Instant::now();
                let owner = look_up(peer, server).unwrap();
                samples.push(t.elapsed());
                assert!(owner.is_some());
            }
            report(
                &format!("{way}, {others} others open"),
                samples,
                started.elapsed(),
            );
        }
    }
    drop(open);

    capture_over_http(
        &format!("capture, {CLIENTS} clients, a connection each"),
        Connections::EachCapture,
    )
    .await;
}

/// How the capture clients connect: one kept-alive connection each, or a new one per
/// capture (as each CLI command makes).
#[derive(Clone, Copy)]
enum Connections {
    Kept,
    EachCapture,
}

/// The whole service, end to end: `CLIENTS` clients capture `CAPTURES` notes between
/// them over HTTP, durably; their latencies reported under `name`.
async fn capture_over_http(name: &str, connections: Connections) {
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
                let new_client = || {
                    awc::Client::builder()
                        .timeout(Duration::from_secs(30))
                        .finish()
                };
                let mut client = new_client();
                let mut samples = Vec::new();
                for i in 0..CAPTURES / CLIENTS {
                    if let Connections::EachCapture = connections {
                        client = new_client();
                    }
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
    report(name, samples, started.elapsed());
    handle.stop(true).await;
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
        if wants("tags") {
            tags().await;
        }
        if wants("search") {
            search().await;
        }
        if wants("integrity") {
            integrity().await;
        }
        if wants("peers") {
            peers().await;
        }
        if wants("rename") {
            rename().await;
        }
    });
}
