//! Related notes and the nearest notes to a vector at 10,000 and 100,000 notes of 768
//! dimensions (embeddinggemma's), issue #26 point 5: the exact search over every stored
//! vector (the reference), and the vector index (binary codes in memory, 200 candidates
//! ranked exactly from SQLite): how long the index takes to build at start (and its
//! slowest slice, what a capture then waits at most), what it adds to the process's
//! resident memory, p50/p99 of related notes and of the nearest notes to a query vector,
//! recall@5 against the exact search for 100, 200 and 400 candidates, and an int8 scan
//! (no SQLite) beside it. Also how long a batch of 8 vectors takes to store, and what is
//! left to embed is found.
//!
//! The vectors are clustered as an embedding model's are (notes about one thing near each
//! other): a centre per 50 notes, each note its centre plus noise of its own strength, so
//! some notes have close neighbours, some only far ones, and some none above the floor.
//!
//! Run: `cargo bench --bench related` (`-- 100000` for one size). Quoted in
//! docs/PERFORMANCE.md, "Related notes at scale". Under `cargo test` (no `--bench`
//! argument) it does nothing.

use std::time::{Duration, Instant};

use inkling::search::floors::RELATED_FLOOR;
use inkling::storage::vector_index::Scope;
use inkling::storage::vectors::{encode, RELATED_NOTES};
use inkling::storage::{IndexProgress, NoteVector, Store, BACKLOG_WALK, INDEX_SLICE};

const DIMS: usize = 768;
const NOTES_PER_CENTRE: usize = 50;
const MODEL: &str = "embeddinggemma";
/// Timed queries of each kind through the index.
const QUERIES: usize = 300;
/// Queries compared with the exact search (each reads every vector: 0.6 s at 100,000).
const RECALL_QUERIES: usize = 40;

/// A seeded xorshift64: the same notes every run.
struct Random(u64);

impl Random {
    fn unit(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % 2_000_001) as f32 / 1_000_000.0 - 1.0
    }

    fn vector(&mut self) -> Vec<f32> {
        (0..DIMS).map(|_| self.unit()).collect()
    }

    /// A vector of length 1 near `centre`, `spread` the noise's strength.
    fn near(&mut self, centre: &[f32], spread: f32) -> Vec<f32> {
        let v: Vec<f32> = centre.iter().map(|c| c + spread * self.unit()).collect();
        unit_length(v)
    }

    /// A note's spread: 0.4 (close neighbours, cosine ~0.85) to 1.1 (none above 0.5).
    fn spread(&mut self) -> f32 {
        0.75 + 0.35 * self.unit()
    }
}

fn unit_length(v: Vec<f32>) -> Vec<f32> {
    let length = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.into_iter().map(|x| x / length).collect()
}

fn id(n: usize) -> String {
    format!("note-{n:07}")
}

fn percentile(times: &mut [Duration], p: f64) -> Duration {
    times.sort();
    times[((times.len() - 1) as f64 * p).round() as usize]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// This process's resident memory (`VmRSS`), in MiB.
fn rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|kib| kib.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(f64::NAN, |kib| kib / 1024.0)
}

/// How many of `exact`'s ids `found` has.
fn overlap(found: &[(String, f32)], exact: &[(String, f32)]) -> usize {
    exact
        .iter()
        .filter(|(id, _)| found.iter().any(|(f, _)| f == id))
        .count()
}

/// A database of `notes` notes with clustered vectors; the centres, for query vectors.
fn build(path: &std::path::Path, notes: usize) -> Vec<Vec<f32>> {
    let store = Store::open(path, 30).expect("the store");
    let mut random = Random(0x9e37_79b9_7f4a_7c15);
    let centres: Vec<Vec<f32>> = (0..notes.div_ceil(NOTES_PER_CENTRE))
        .map(|_| random.vector())
        .collect();
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
                 VALUES (?1, ?2, ?3, ?4, '2026-03-01T12:00:00.000Z')",
            )
            .expect("insert a vector");
        for n in 0..notes {
            let spread = random.spread();
            let v = random.near(&centres[n % centres.len()], spread);
            note.execute((id(n), format!("note number {n}")))
                .expect("a note");
            vector
                .execute((id(n), MODEL, DIMS as i64, encode(&v)))
                .expect("a vector");
        }
    }
    conn.execute_batch("COMMIT").expect("commit");
    centres
}

/// The int8 alternative: each vector's values scaled to -127..127 (768 bytes, and its
/// scale), every one compared with the query; no SQLite, no rescoring.
struct Int8 {
    codes: Vec<i8>,
    scales: Vec<f32>,
}

impl Int8 {
    fn quantise(v: &[f32]) -> (Vec<i8>, f32) {
        let max = v
            .iter()
            .fold(0.0_f32, |m, x| m.max(x.abs()))
            .max(f32::MIN_POSITIVE);
        let codes = v.iter().map(|x| (x / max * 127.0).round() as i8).collect();
        (codes, max / 127.0)
    }

    fn load(store: &Store) -> Self {
        let mut stmt = store
            .connection()
            .prepare("SELECT vector FROM note_vectors ORDER BY note_id")
            .expect("the vectors");
        let mut rows = stmt.query([]).expect("the vectors");
        let (mut codes, mut scales) = (Vec::new(), Vec::new());
        while let Some(row) = rows.next().expect("a row") {
            let bytes: Vec<u8> = row.get(0).expect("a vector");
            let v = inkling::storage::vectors::decode(&bytes).expect("floats");
            let (c, s) = Self::quantise(&v);
            codes.extend(c);
            scales.push(s);
        }
        Int8 { codes, scales }
    }

    fn nearest(&self, query: &[f32], k: usize, except: Option<usize>) -> Vec<(String, f32)> {
        let (q, qs) = Self::quantise(query);
        let mut best = inkling::storage::vectors::Best::new(k, RELATED_FLOOR);
        // Newest first, as the exact search offers them.
        for n in (0..self.scales.len()).rev() {
            if Some(n) == except {
                continue;
            }
            let code = &self.codes[n * DIMS..(n + 1) * DIMS];
            let dot: i32 = code
                .iter()
                .zip(&q)
                .map(|(a, b)| *a as i32 * *b as i32)
                .sum();
            best.offer(&id(n), dot as f32 * qs * self.scales[n]);
        }
        best.into_vec()
    }
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let sizes: Vec<usize> = std::env::args()
        .filter_map(|a| a.parse().ok())
        .collect::<Vec<_>>();
    let sizes = if sizes.is_empty() {
        vec![10_000, 100_000]
    } else {
        sizes
    };
    for notes in sizes {
        let dir = tempfile::tempdir().expect("a temp dir");
        let path = dir.path().join("inkling.db");
        let built = Instant::now();
        let centres = build(&path, notes);
        let file_mb = std::fs::metadata(&path).map_or(0.0, |m| m.len() as f64 / 1e6);
        println!(
            "{notes} notes of {DIMS} dimensions ({} centres) built in {:.1} s ({file_mb:.0} MB)",
            centres.len(),
            built.elapsed().as_secs_f64()
        );

        // A service's start: the store opened, the index not built yet.
        let mut store = Store::open(&path, 30).expect("the store");
        let mut random = Random(0x2545_f491_4f6c_dd1d);
        let asking: Vec<usize> = (0..QUERIES).map(|q| (q * 7919) % notes).collect();
        let queries: Vec<Vec<f32>> = (0..QUERIES)
            .map(|q| {
                let spread = random.spread();
                random.near(&centres[(q * 104_729) % centres.len()], spread)
            })
            .collect();
        // Without the index: the exact search, the baseline the index is measured against.
        let mut times = Vec::new();
        for &n in asking.iter().take(10) {
            let started = Instant::now();
            let related = store
                .related(&id(n), RELATED_NOTES, |_| RELATED_FLOOR)
                .expect("related");
            times.push(started.elapsed());
            assert!(related.embedded);
        }
        println!(
            "  exact search (every vector): related p50 {:.1} ms, slowest {:.1} ms (10 queries)",
            ms(percentile(&mut times, 0.5)),
            ms(percentile(&mut times, 1.0))
        );

        let rss_before = rss_mib();
        let (started, mut slices) = (Instant::now(), Vec::new());
        loop {
            let slice = Instant::now();
            let progress = store.index_vectors(INDEX_SLICE).expect("a slice");
            slices.push(slice.elapsed());
            if let IndexProgress::Done { indexed } = progress {
                assert_eq!(indexed, notes);
                break;
            }
        }
        let build_time = started.elapsed();
        let rss_built = rss_mib();
        println!(
            "  index built in {:.0} ms, {} slices of {INDEX_SLICE}, slowest {:.1} ms; index {:.1} MiB; RSS {rss_before:.1} -> {rss_built:.1} MiB",
            ms(build_time),
            slices.len(),
            ms(percentile(&mut slices, 1.0)),
            store.index_bytes() as f64 / 1_048_576.0
        );

        let mut related_times = Vec::new();
        let mut shown = 0;
        for &n in &asking {
            let started = Instant::now();
            let related = store
                .related(&id(n), RELATED_NOTES, |_| RELATED_FLOOR)
                .expect("related");
            related_times.push(started.elapsed());
            shown += related.notes.len();
        }
        let mut nearest_times = Vec::new();
        for query in &queries {
            let started = Instant::now();
            store
                .nearest_to_vector(MODEL, query, RELATED_NOTES, RELATED_FLOOR)
                .expect("nearest");
            nearest_times.push(started.elapsed());
        }
        println!(
            "  through the index: related p50 {:.2} ms, p99 {:.2} ms ({shown} notes shown for {QUERIES}); nearest to a vector p50 {:.2} ms, p99 {:.2} ms; RSS after {:.1} MiB",
            ms(percentile(&mut related_times, 0.5)),
            ms(percentile(&mut related_times, 0.99)),
            ms(percentile(&mut nearest_times, 0.5)),
            ms(percentile(&mut nearest_times, 0.99)),
            rss_mib()
        );

        // Recall@5 against the exact search, for related notes (a stored note asking)
        // and for query vectors, at three numbers of candidates.
        let mut exact_related = Vec::new();
        let mut exact_nearest = Vec::new();
        for q in 0..RECALL_QUERIES {
            let own = store
                .connection()
                .query_row(
                    "SELECT vector FROM note_vectors WHERE note_id = ?1",
                    [id(asking[q])],
                    |r| r.get::<_, Vec<u8>>(0),
                )
                .expect("its vector");
            let own = inkling::storage::vectors::decode(&own).expect("floats");
            let except = id(asking[q]);
            exact_related.push((
                own.clone(),
                store
                    .nearest_exact(MODEL, &own, 5, RELATED_FLOOR, Scope::AllBut(&except))
                    .expect("exact"),
            ));
            exact_nearest.push(
                store
                    .nearest_exact(MODEL, &queries[q], 5, RELATED_FLOOR, Scope::All)
                    .expect("exact"),
            );
        }
        for candidates in [100, 200, 400] {
            let (mut found, mut expected, mut times) = (0, 0, Vec::new());
            for q in 0..RECALL_QUERIES {
                let except = id(asking[q]);
                let (own, exact) = &exact_related[q];
                let started = Instant::now();
                let hits = store
                    .nearest_through_index(
                        MODEL,
                        own,
                        5,
                        RELATED_FLOOR,
                        Scope::AllBut(&except),
                        candidates,
                    )
                    .expect("nearest");
                times.push(started.elapsed());
                found += overlap(&hits, exact);
                expected += exact.len();
                let hits = store
                    .nearest_through_index(
                        MODEL,
                        &queries[q],
                        5,
                        RELATED_FLOOR,
                        Scope::All,
                        candidates,
                    )
                    .expect("nearest");
                found += overlap(&hits, &exact_nearest[q]);
                expected += exact_nearest[q].len();
            }
            println!(
                "  binary codes + {candidates} candidates ranked exactly: recall@5 {:.3} ({found} of {expected}), related p50 {:.2} ms",
                found as f64 / expected.max(1) as f64,
                ms(percentile(&mut times, 0.5))
            );
        }

        // The int8 alternative, for the record: every code compared, no rescoring.
        let rss_before_int8 = rss_mib();
        let int8 = Int8::load(&store);
        let rss_int8 = rss_mib();
        let (mut found, mut expected, mut times) = (0, 0, Vec::new());
        for q in 0..RECALL_QUERIES {
            let (own, exact) = &exact_related[q];
            let started = Instant::now();
            let hits = int8.nearest(own, 5, Some(asking[q]));
            times.push(started.elapsed());
            found += overlap(&hits, exact);
            expected += exact.len();
            found += overlap(&int8.nearest(&queries[q], 5, None), &exact_nearest[q]);
            expected += exact_nearest[q].len();
        }
        println!(
            "  int8 codes, every one compared: recall@5 {:.3}, p50 {:.1} ms, p99 {:.1} ms, RSS +{:.1} MiB",
            found as f64 / expected.max(1) as f64,
            ms(percentile(&mut times, 0.5)),
            ms(percentile(&mut times, 0.99)),
            rss_int8 - rss_before_int8
        );
        drop(int8);

        // What is left to embed when nothing is: every note walked (the worker's read
        // of every note, at start-up or after a failure), and one note by id (its read
        // after each capture).
        let started = Instant::now();
        let left = store
            .embedding_backlog(MODEL, 8, &[], None)
            .expect("backlog");
        assert!(left.notes.is_empty());
        let walk = started.elapsed();
        let one = [id(notes / 2)];
        let started = Instant::now();
        store
            .embedding_backlog(MODEL, 8, &[], Some(&one))
            .expect("backlog");
        let by_id = started.elapsed();
        // The walk as the worker makes it now: a slice of BACKLOG_WALK notes at a time.
        let (mut slices, mut before) = (Vec::new(), None::<String>);
        loop {
            let started = Instant::now();
            let slice = store
                .embedding_backlog_slice(MODEL, 8, &[], before.as_deref(), BACKLOG_WALK)
                .expect("a slice");
            slices.push(started.elapsed());
            match slice.next {
                Some(next) => before = Some(next),
                None => break,
            }
        }
        let count = slices.len();
        let total: Duration = slices.iter().sum();
        println!(
            "  nothing left to embed: every note walked in {:.1} ms at once, or {count} slices of {BACKLOG_WALK} ({:.1} ms in all, slowest {:.1} ms); one note by id in {:.2} ms",
            ms(walk),
            ms(total),
            ms(percentile(&mut slices, 1.0)),
            ms(by_id)
        );

        let mut saves = Vec::new();
        for batch in 0..30 {
            let vectors: Vec<NoteVector> = (0..8)
                .map(|k| {
                    let n = (batch * 8 + k) % notes;
                    NoteVector {
                        note_id: id(n),
                        body: format!("note number {n}"),
                        vector: unit_length(random.vector()),
                    }
                })
                .collect();
            let now = chrono::Utc::now();
            let started = Instant::now();
            let stored = store.save_vectors(MODEL, &vectors, now).expect("saved");
            saves.push(started.elapsed());
            assert_eq!(stored, 8);
        }
        println!(
            "  a batch of 8 vectors stored (and indexed): median {:.1} ms",
            ms(percentile(&mut saves, 0.5))
        );
    }
}
