//! The retry-all benchmark: over 100,000 failed notes end to end, against the same SQL
//! run raw on a copy of the database.

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use inkling::clock::SystemClock;
use inkling::storage::Store;

use crate::service;
use crate::settings;

const FAILED_NOTES: usize = 100_000;

pub(crate) async fn retry() {
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
