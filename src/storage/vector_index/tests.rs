use super::*;
use crate::storage::vectors::nearest;

/// A seeded xorshift64: the same vectors every run.
struct Random(u64);

impl Random {
    fn unit(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % 2_000_001) as f32 / 1_000_000.0 - 1.0
    }

    fn vector(&mut self, dims: usize) -> Vec<f32> {
        (0..dims).map(|_| self.unit()).collect()
    }
}

fn unit_length(v: Vec<f32>) -> Vec<f32> {
    let length = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.into_iter().map(|x| x / length).collect()
}

fn ids(found: Vec<Arc<str>>) -> Vec<String> {
    let mut ids: Vec<String> = found.iter().map(|id| id.to_string()).collect();
    ids.sort();
    ids
}

#[test]
fn a_code_holds_each_values_sign_and_the_distance_counts_the_signs_that_differ() {
    let mut vector = vec![-1.0_f32; 70];
    vector[0] = 0.5;
    vector[63] = 0.1;
    vector[64] = 2.0;
    vector[69] = 0.0; // zero is not above zero
    let code = binary_code(&vector);
    assert_eq!(code, [1 | 1 << 63, 1]);
    let opposite: Vec<f32> = vector.iter().map(|v| -v).collect();
    // Every sign differs except the zero's (0.0 and -0.0 are both "not above").
    assert_eq!(hamming(&code, &binary_code(&opposite)), 69);
    assert_eq!(hamming(&code, &code), 0);
    // The scan's distances (with the CPU's popcnt where it has one) are the same.
    let codes = [code.clone(), binary_code(&opposite)].concat();
    assert_eq!(distances(&code, &codes), [0, 69]);
    assert_eq!(distances_portable(&code, &codes), [0, 69]);
    let stored = crate::storage::vectors::encode(&vector);
    assert_eq!(binary_code_stored(&stored), Some(code));
    assert_eq!(binary_code_stored(&stored[..5]), None);
}

#[test]
fn the_scan_finds_the_nearest_codes_and_leaves_out_the_asking_note() {
    let mut index = VectorIndex::default();
    index.insert("m", "same", &[1.0, 1.0, 1.0, 1.0]);
    index.insert("m", "one off", &[1.0, 1.0, 1.0, -1.0]);
    index.insert("m", "two off", &[1.0, 1.0, -1.0, -1.0]);
    index.insert("m", "opposite", &[-1.0, -1.0, -1.0, -1.0]);
    let query = [0.9, 0.8, 0.7, 0.6];
    assert_eq!(
        ids(index.candidates("m", &query, 2, Scope::All)),
        ["one off", "same"]
    );
    assert_eq!(
        ids(index.candidates("m", &query, 2, Scope::AllBut("same"))),
        ["one off", "two off"]
    );
    assert_eq!(index.candidates("m", &query, 10, Scope::All).len(), 4);
}

#[test]
fn a_scan_held_to_some_notes_finds_their_nearest_however_far_the_others_are() {
    let mut index = VectorIndex::default();
    for n in 0..50 {
        index.insert("m", &format!("near {n}"), &[1.0, 1.0, 1.0, 1.0]);
    }
    index.insert("m", "far", &[1.0, 1.0, -1.0, -1.0]);
    index.insert("m", "farther", &[1.0, -1.0, -1.0, -1.0]);
    index.insert("m", "farthest", &[-1.0, -1.0, -1.0, -1.0]);
    let query = [1.0, 1.0, 1.0, 1.0];
    let only: std::collections::HashSet<String> = ["far", "farther", "farthest", "not indexed"]
        .map(String::from)
        .into();
    assert_eq!(
        ids(index.candidates("m", &query, 2, Scope::Only(&only))),
        ["far", "farther"]
    );
    assert_eq!(
        ids(index.candidates("m", &query, 10, Scope::Only(&only))),
        ["far", "farther", "farthest"]
    );
    assert!(index
        .candidates("m", &query, 2, Scope::All)
        .iter()
        .all(|id| id.starts_with("near")));
    assert!(Scope::Only(&only).admits("far") && !Scope::Only(&only).admits("near 0"));
    assert!(!Scope::AllBut("far").admits("far") && Scope::All.admits("far"));
}

#[test]
fn a_note_taken_out_is_never_found_and_the_others_keep_their_codes() {
    let mut index = VectorIndex::default();
    for (id, sign) in [("a", 1.0), ("b", -1.0), ("c", 1.0), ("d", -1.0)] {
        index.insert("m", id, &[sign, sign, 1.0]);
    }
    assert!(
        index.remove("a"),
        "the first slot: the last note moves into it"
    );
    assert!(!index.remove("a"), "already gone");
    assert_eq!(index.len(), 3);
    // "d" moved into a's slot and still has its own code: the nearest to (-,-,+).
    assert_eq!(
        ids(index.candidates("m", &[-1.0, -1.0, 1.0], 2, Scope::All)),
        ["b", "d"]
    );
    assert_eq!(
        ids(index.candidates("m", &[1.0, 1.0, 1.0], 1, Scope::All)),
        ["c"]
    );
    // A new vector for a note replaces its code, in place.
    index.insert("m", "c", &[-1.0, -1.0, 1.0]);
    assert_eq!(index.len(), 3);
    assert_eq!(
        ids(index.candidates("m", &[1.0, 1.0, 1.0], 3, Scope::All)),
        ["b", "c", "d"]
    );
    for id in ["b", "c", "d"] {
        assert!(index.remove(id));
    }
    assert!(index.is_empty());
    assert!(index
        .candidates("m", &[1.0, 1.0, 1.0], 3, Scope::All)
        .is_empty());
}

#[test]
fn models_and_lengths_are_never_mixed_and_a_new_models_vector_replaces_the_old() {
    let mut index = VectorIndex::default();
    index.insert("old", "a", &[1.0, 1.0]);
    index.insert("old", "b", &[1.0, 1.0]);
    index.insert("old", "wide", &[1.0, 1.0, 1.0]);
    assert_eq!(
        ids(index.candidates("old", &[1.0, 1.0], 10, Scope::All)),
        ["a", "b"]
    );
    assert_eq!(
        ids(index.candidates("old", &[1.0, 1.0, 1.0], 10, Scope::All)),
        ["wide"]
    );
    assert!(index
        .candidates("new", &[1.0, 1.0], 10, Scope::All)
        .is_empty());

    // Re-embedded with another model: the note's old code goes with its old vector.
    index.insert("new", "a", &[1.0, 1.0, 1.0, 1.0]);
    assert!(index.contains("new", "a"));
    assert!(!index.contains("old", "a"));
    assert_eq!(
        ids(index.candidates("old", &[1.0, 1.0], 10, Scope::All)),
        ["b"]
    );
    assert_eq!(index.len(), 3);
    index.insert("new", "b", &[1.0, 1.0, 1.0, 1.0]);
    assert!(index
        .candidates("old", &[1.0, 1.0], 10, Scope::All)
        .is_empty());
    assert_eq!(
        index.tables.len(),
        2,
        "the old model's empty table is dropped"
    );
}

/// Clustered vectors, as an embedding model's are (notes about one thing near each
/// other): the scan's candidates, compared exactly, give the exact search's answer.
#[test]
fn candidates_compared_exactly_find_what_the_exact_search_finds() {
    const DIMS: usize = 128;
    let mut random = Random(0x2545_f491_4f6c_dd1d);
    let centres: Vec<Vec<f32>> = (0..40).map(|_| random.vector(DIMS)).collect();
    let notes: Vec<(String, Vec<f32>)> = (0..2_000)
        .map(|n| {
            let noise = random.vector(DIMS);
            let centre = &centres[n % centres.len()];
            let v = centre
                .iter()
                .zip(&noise)
                .map(|(c, e)| c + 0.6 * e)
                .collect();
            (format!("note-{n:05}"), unit_length(v))
        })
        .collect();
    let mut index = VectorIndex::default();
    for (id, v) in &notes {
        index.insert("m", id, v);
    }
    let vectors: HashMap<&str, &[f32]> = notes
        .iter()
        .map(|(id, v)| (id.as_str(), v.as_slice()))
        .collect();
    let (mut found, mut expected) = (0, 0);
    for (asking, query) in notes.iter().step_by(50) {
        let others = notes
            .iter()
            .filter(|(id, _)| id != asking)
            .map(|(id, v)| (id.clone(), v.as_slice()));
        let exact = nearest(query, others, 5, 0.5);
        let candidates = index.candidates("m", query, 100, Scope::AllBut(asking));
        assert!(candidates.iter().all(|id| **id != **asking));
        let rescored = nearest(
            query,
            candidates.iter().map(|id| (id.to_string(), vectors[&**id])),
            5,
            0.5,
        );
        expected += exact.len();
        found += rescored.iter().filter(|hit| exact.contains(hit)).count();
    }
    assert!(
        expected >= 150,
        "the set has neighbours above the floor: {expected}"
    );
    let recall = found as f64 / expected as f64;
    assert!(
        recall >= 0.95,
        "recall@5 {recall:.3} ({found} of {expected})"
    );
}
