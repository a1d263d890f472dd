//! The worker benchmark: notes per second through the whole pipeline with an instant
//! fake provider, against a loop that calls the same provider and commits the same rows.

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use inkling::ai::ollama::OllamaClient;
use inkling::ai::{CallPlan, Capabilities, Chat};
use inkling::clock::SystemClock;
use inkling::services::Services;
use inkling::storage::Store;

use crate::fake_ollama;
use crate::{body, settings};

const WORKER_NOTES: usize = 2_000;

pub(crate) async fn worker() {
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
