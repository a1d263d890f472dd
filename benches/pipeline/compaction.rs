//! The compaction benchmark: the change log of 100,000 notes with four changes each
//! (imported, then answered, embedded and edited, as a year of use leaves it) compacted
//! to each note's newest change a step at a time, as the hourly upkeep does; then the
//! next hour's pass over what came since.

use std::time::Instant;

use chrono::Utc;
use inkling::storage::{Store, COMPACT_STEP};

use crate::settings;
use crate::tags::{tagged_notes, TAG_NOTES};
use crate::{percentiles, report};

/// Each note's changes after its import, in the order the worker would log them.
const LATER: [&str; 3] = ["enriched", "embedded", "edited"];

pub(crate) async fn compaction() {
    println!("compaction: the change log of {TAG_NOTES} notes, four changes each");
    let dir = tempfile::tempdir().unwrap();
    let s = settings(dir.path(), &[]);
    let mut store = Store::open(&s.database_path(), 30).unwrap();
    store.import(&tagged_notes(""), Utc::now()).unwrap();
    // The later changes written as rows (what `Write::record` writes), in one
    // transaction: 300,000 writes one by one would take the bench's minutes, and only
    // the log's shape matters here. Each kind in its own sweep over the notes, as a
    // backlog's answers, then its vectors, then edits come.
    {
        let conn = store.connection();
        conn.execute_batch("BEGIN").unwrap();
        for kind in LATER {
            conn.execute(
                "INSERT INTO note_changes (note_id, kind, at)
                 SELECT id, ?1, updated_at FROM notes ORDER BY created_at, id",
                [kind],
            )
            .unwrap();
        }
        conn.execute_batch("COMMIT").unwrap();
    }
    // One write through the store, so what follows the log (the vector index in
    // memory) reads the rows written by hand now, not in the first step; and the
    // set-up's WAL folded in, as a service running for a while has it.
    let first: String = store
        .connection()
        .query_row("SELECT id FROM notes LIMIT 1", [], |r| r.get(0))
        .unwrap();
    store.keep(&first, Utc::now()).unwrap();
    store.checkpoint().unwrap();
    let rows = |store: &Store| -> i64 {
        store
            .connection()
            .query_row("SELECT count(*) FROM note_changes", [], |r| r.get(0))
            .unwrap()
    };
    let before = rows(&store);

    // The service compacts changes older than an hour; here every change is old enough.
    let old_enough = Utc::now() + chrono::Duration::days(1);
    let pass = |store: &mut Store| {
        let mut steps = Vec::new();
        let mut removed = 0;
        let began = Instant::now();
        loop {
            let started = Instant::now();
            let step = store
                .compact_changes_step(COMPACT_STEP, old_enough)
                .unwrap();
            steps.push(started.elapsed());
            removed += step.removed;
            if step.done {
                return (steps, removed, began.elapsed());
            }
        }
    };
    let (steps, removed, took) = pass(&mut store);
    println!(
        "  the first pass: {} steps of {COMPACT_STEP} rows, {removed} of {before} rows gone, {} left, {:.2} s in all",
        steps.len(),
        rows(&store),
        took.as_secs_f64()
    );
    report("a step of the first pass (durable)", steps, took);

    // An hour of use: 1,000 notes changed twice each (the first 1,000 imported).
    let ids: Vec<String> = {
        let mut stmt = store
            .connection()
            .prepare("SELECT id FROM notes ORDER BY id LIMIT 1000")
            .unwrap();
        let ids = stmt
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        ids
    };
    for id in &ids {
        for kind in ["edited", "enriched"] {
            store
                .connection()
                .execute(
                    "INSERT INTO note_changes (note_id, kind, at) VALUES (?1, ?2, '2026-12-06T00:00:00Z')",
                    rusqlite::params![id, kind],
                )
                .unwrap();
        }
    }
    let (steps, removed, took) = pass(&mut store);
    let (p50, _, max) = percentiles(steps.clone());
    println!(
        "  the next hour's pass (2,000 changes of 1,000 notes since): {} steps, {removed} rows gone, {:.1} ms in all (a step p50 {p50:.1} ms, max {max:.1} ms)",
        steps.len(),
        took.as_secs_f64() * 1000.0
    );
}
