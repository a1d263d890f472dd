//! The search benchmark: one- and two-word searches over 100,000 notes, the bare FTS5
//! query against `Store::search` and `GET /api/notes?q=`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use inkling::clock::SystemClock;
use inkling::storage::Store;

use crate::service;
use crate::{percentiles, settings};

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

pub(crate) async fn search() {
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
