//! How long a note's related notes take to find by brute force over the stored vectors
//! (`Store::related`: every vector of the model read and compared, one at a time), at
//! 10,000 and 100,000 notes of 768 dimensions (embeddinggemma's), and how long a batch
//! of 8 vectors takes to store, and what is left to embed is found. The reference for issue #26 point 5 (an index).
//!
//! Run: `cargo bench --bench related`. Prints the median and the slowest of 30 queries
//! per size, and the median of 30 saves. Quoted in docs/PERFORMANCE.md. Under `cargo
//! test` (no `--bench` argument) it does nothing.

use std::time::{Duration, Instant};

use inkling::storage::vectors::{encode, RELATED_NOTES, SIMILARITY_FLOOR};
use inkling::storage::{NoteVector, Store};

const DIMS: usize = 768;
const QUERIES: usize = 30;

/// A seeded xorshift64: the same notes every run.
struct Random(u64);

impl Random {
    fn unit(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % 2_000_001) as f32 / 1_000_000.0 - 1.0
    }

    /// A vector of length 1.
    fn vector(&mut self) -> Vec<f32> {
        let v: Vec<f32> = (0..DIMS).map(|_| self.unit()).collect();
        let length = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.into_iter().map(|x| x / length).collect()
    }
}

fn percentile(times: &mut [Duration], p: f64) -> Duration {
    times.sort();
    times[((times.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    for notes in [10_000, 100_000] {
        let dir = tempfile::tempdir().expect("a temp dir");
        let mut store = Store::open(&dir.path().join("inkling.db"), 30).expect("the store");
        let mut random = Random(0x9e37_79b9_7f4a_7c15);
        let built = Instant::now();
        let conn = store.connection();
        conn.execute_batch("BEGIN").expect("begin");
        {
            let mut note = conn
                .prepare(
                    "INSERT INTO notes (id, body, ai_status, created_at, updated_at)
                     VALUES (?1, ?2, 'done', '2026-03-01T12:00:00.000Z', '2026-03-01T12:00:00.000Z')",
                )
                .expect("insert a note");
            let mut vector = conn
                .prepare(
                    "INSERT INTO note_vectors (note_id, model, dims, vector, embedded_at)
                     VALUES (?1, 'embeddinggemma', ?2, ?3, '2026-03-01T12:00:00.000Z')",
                )
                .expect("insert a vector");
            for n in 0..notes {
                let id = format!("note-{n:07}");
                note.execute((&id, format!("note number {n}")))
                    .expect("a note");
                vector
                    .execute((&id, DIMS as i64, encode(&random.vector())))
                    .expect("a vector");
            }
        }
        conn.execute_batch("COMMIT").expect("commit");
        let file_mb = std::fs::metadata(dir.path().join("inkling.db"))
            .map(|m| m.len() as f64 / 1e6)
            .unwrap_or(0.0);
        println!(
            "{notes} notes of {DIMS} dimensions built in {:.1} s ({file_mb:.0} MB)",
            built.elapsed().as_secs_f64()
        );

        let mut times = Vec::new();
        for q in 0..QUERIES {
            let id = format!("note-{:07}", (q * 7919) % notes);
            let started = Instant::now();
            let related = store
                .related(&id, RELATED_NOTES, SIMILARITY_FLOOR)
                .expect("related");
            times.push(started.elapsed());
            assert!(related.embedded);
        }
        let median = percentile(&mut times, 0.5);
        let slowest = percentile(&mut times, 1.0);
        println!(
            "  related notes: median {:.1} ms, slowest {:.1} ms ({QUERIES} queries)",
            median.as_secs_f64() * 1e3,
            slowest.as_secs_f64() * 1e3
        );

        // What is left to embed when nothing is: every note walked (the worker's read
        // of every note, at start-up or after a failure), and one note by id (its read
        // after each capture).
        let started = Instant::now();
        let left = store
            .embedding_backlog("embeddinggemma", 8, &[], None)
            .expect("backlog");
        assert!(left.notes.is_empty());
        let walk = started.elapsed();
        let one = [format!("note-{:07}", notes / 2)];
        let started = Instant::now();
        store
            .embedding_backlog("embeddinggemma", 8, &[], Some(&one))
            .expect("backlog");
        println!(
            "  nothing left to embed: every note walked in {:.1} ms, one note by id in {:.2} ms",
            walk.as_secs_f64() * 1e3,
            started.elapsed().as_secs_f64() * 1e3
        );

        let mut saves = Vec::new();
        for batch in 0..QUERIES {
            let vectors: Vec<NoteVector> = (0..8)
                .map(|k| {
                    let n = (batch * 8 + k) % notes;
                    NoteVector {
                        note_id: format!("note-{n:07}"),
                        body: format!("note number {n}"),
                        vector: random.vector(),
                    }
                })
                .collect();
            let now = chrono::Utc::now();
            let started = Instant::now();
            let stored = store
                .save_vectors("embeddinggemma", &vectors, now)
                .expect("saved");
            saves.push(started.elapsed());
            assert_eq!(stored, 8);
        }
        println!(
            "  a batch of 8 vectors stored: median {:.1} ms",
            percentile(&mut saves, 0.5).as_secs_f64() * 1e3
        );
    }
}
