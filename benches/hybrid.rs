//! What the hybrid search costs at the store, with and without its semantic half
//! (docs/PERFORMANCE.md, "Hybrid search"): at 10,000 and 100,000 notes whose bodies
//! carry words in known shares (a word in half the notes, one in 500, one in 10,000),
//! each with a 768-dimension vector (embeddinggemma's length) of seeded random values,
//! release build. Per query: the keyword search (`Store::search`, limit 50), the
//! semantic half (`Store::search_by_meaning`: the nearest 50 by brute force,
//! `Store::nearest_to_vector`, under the filter), and the two fused
//! (`search::fusion::fuse`). The query's embedding call is the model server's and is
//! measured apart (docs/PERFORMANCE.md says how).
//!
//! Run: `cargo bench --bench hybrid`. Prints the median and the slowest of 30 searches
//! per query and size. Under `cargo test` (no `--bench` argument) it does nothing.

use std::time::{Duration, Instant};

use chrono::Utc;
use inkling::domain::ListFilter;
use inkling::search::fusion::fuse;
use inkling::storage::vectors::encode;
use inkling::storage::{SearchQuery, Store};

const DIMS: usize = 768;
const SEARCHES: usize = 30;
/// The words, each in one note in `every`.
const WORDS: [(&str, usize); 3] = [("tomato", 2), ("dentist", 500), ("zephyr", 10_000)];

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

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    for notes in [10_000, 100_000] {
        let dir = tempfile::tempdir().expect("a temp dir");
        let store = Store::open(&dir.path().join("inkling.db"), 30).expect("the store");
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
                let mut body = format!("note number {n}");
                for (word, every) in WORDS {
                    if n % every == 0 {
                        body.push(' ');
                        body.push_str(word);
                    }
                }
                note.execute((&id, body)).expect("a note");
                vector
                    .execute((&id, DIMS as i64, encode(&random.vector())))
                    .expect("a vector");
            }
        }
        conn.execute_batch("COMMIT").expect("commit");
        println!(
            "{notes} notes of {DIMS} dimensions built in {:.1} s",
            built.elapsed().as_secs_f64()
        );
        let filter = ListFilter {
            limit: Some(50),
            ..ListFilter::default()
        };
        for (word, every) in WORDS {
            let query = SearchQuery::parse(word).expect("a query");
            let (mut keyword, mut semantic, mut fused) = (Vec::new(), Vec::new(), Vec::new());
            for _ in 0..SEARCHES {
                let now = Utc::now();
                let started = Instant::now();
                let hits = store.search(&query, &filter, now).expect("searched");
                keyword.push(started.elapsed());
                let vector = random.vector();
                let started = Instant::now();
                // A floor below every similarity: the nearest 50 are all read and
                // filtered (random vectors are all far apart; real ones, above the
                // floor, are fewer).
                let nearest = store
                    .search_by_meaning("embeddinggemma", &vector, &filter, now, 50, -1.0)
                    .expect("the nearest");
                semantic.push(started.elapsed());
                assert_eq!(nearest.len(), 50);
                let by_words: Vec<String> = hits.iter().map(|h| h.note.id.clone()).collect();
                let by_meaning: Vec<String> = nearest.iter().map(|(n, _)| n.id.clone()).collect();
                let started = Instant::now();
                let merged = fuse(&by_words, &by_meaning, 50);
                fused.push(started.elapsed());
                assert_eq!(merged.len(), 50);
            }
            println!(
                "  \"{word}\" (one note in {every}): keyword median {:.2} / slowest {:.2} ms; \
                 semantic half {:.1} / {:.1} ms; fused {:.3} / {:.3} ms",
                ms(percentile(&mut keyword, 0.5)),
                ms(percentile(&mut keyword, 1.0)),
                ms(percentile(&mut semantic, 0.5)),
                ms(percentile(&mut semantic, 1.0)),
                ms(percentile(&mut fused, 0.5)),
                ms(percentile(&mut fused, 1.0)),
            );
        }
    }
}
