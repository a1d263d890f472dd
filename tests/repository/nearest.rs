//! The nearest notes through the vector index (issue #26 point 5): the index follows
//! every write that moves a note's vector (a save, an edit, the trash and back, a new
//! model), its build at start in slices misses none of the writes made between them,
//! and what it finds is what the exact search finds.

use chrono::TimeDelta;
use inkling::domain::ListFilter;
use inkling::search::floors::{RELATED_FLOOR, SEARCH_FLOOR};
use inkling::storage::vector_index::Scope;
use inkling::storage::{IndexProgress, NoteVector, Store};

use super::{capture, edit, store, t0, tagged_notes, EXPIRY_DAYS};

fn unit(values: &[f32]) -> Vec<f32> {
    let length = values.iter().map(|v| v * v).sum::<f32>().sqrt();
    values.iter().map(|v| v / length).collect()
}

fn save(store: &mut Store, model: &str, id: &str, values: &[f32]) {
    let body = store.get(id).unwrap().body;
    let saved = store
        .save_vectors(
            model,
            &[NoteVector {
                note_id: id.into(),
                body,
                vector: unit(values),
            }],
            t0(),
        )
        .unwrap();
    assert_eq!(saved, 1);
}

/// The ids nearest to `query`, through the index; checked against the exact search.
fn nearest(store: &Store, model: &str, query: &[f32]) -> Vec<String> {
    assert!(store.index_ready());
    let query = unit(query);
    let found = store
        .nearest_to_vector(model, &query, 5, RELATED_FLOOR)
        .unwrap();
    let exact = store
        .nearest_exact(model, &query, 5, RELATED_FLOOR, Scope::All)
        .unwrap();
    assert_eq!(found, exact, "the index answers as the exact search does");
    found.into_iter().map(|(id, _)| id).collect()
}

#[test]
fn the_index_follows_saves_edits_the_trash_and_back_and_a_new_model() {
    let mut store = store();
    assert_eq!(store.index_all_vectors().unwrap(), 0);
    let old = capture(
        &mut store,
        "old",
        t0() - TimeDelta::days(EXPIRY_DAYS as i64 + 1),
    );
    let a = capture(&mut store, "a", t0());
    let b = capture(&mut store, "b", t0() + TimeDelta::minutes(1));
    let c = capture(&mut store, "c", t0() + TimeDelta::minutes(2));
    save(&mut store, "m", &old, &[1.0, 0.1, 0.0]);
    save(&mut store, "m", &a, &[1.0, 0.0, 0.0]);
    save(&mut store, "m", &b, &[0.9, 0.436, 0.0]);
    save(&mut store, "m", &c, &[0.0, 1.0, 0.0]);
    assert!([&old, &a, &b, &c].iter().all(|id| store.in_index("m", id)));
    assert_eq!(
        nearest(&store, "m", &[1.0, 0.0, 0.0]),
        [a.as_str(), old.as_str(), b.as_str()]
    );

    // An edited body: its vector is stale, out of the index until the new one comes.
    store
        .edit(&b, &edit(Some("b, rewritten"), None, None), t0())
        .unwrap();
    assert!(!store.in_index("m", &b));
    assert_eq!(
        nearest(&store, "m", &[1.0, 0.0, 0.0]),
        [a.as_str(), old.as_str()]
    );
    save(&mut store, "m", &b, &[0.95, 0.3, 0.0]);
    assert_eq!(
        nearest(&store, "m", &[1.0, 0.0, 0.0]),
        [a.as_str(), old.as_str(), b.as_str()]
    );
    // A title changes no vector.
    store.edit(&b, &edit(None, Some("B"), None), t0()).unwrap();
    assert!(store.in_index("m", &b));

    // The trash, one note and the expired ones; and back.
    store.trash(&a, t0()).unwrap();
    assert_eq!(
        store.trash_expired(t0()).unwrap(),
        std::slice::from_ref(&old)
    );
    assert!(!store.in_index("m", &a) && !store.in_index("m", &old));
    assert_eq!(nearest(&store, "m", &[1.0, 0.0, 0.0]), [b.as_str()]);
    assert!(store.restore(&a, t0()).unwrap().changed);
    assert!(store.in_index("m", &a));
    assert_eq!(
        nearest(&store, "m", &[1.0, 0.0, 0.0]),
        [a.as_str(), b.as_str()]
    );
    // A restore that changes nothing puts nothing in.
    assert!(!store.restore(&c, t0()).unwrap().changed);

    // A new model: each note's vector moves to it as it is re-embedded, never mixed
    // with the old model's, nor with another length.
    save(&mut store, "new", &a, &[1.0, 0.0, 0.0, 0.0]);
    assert!(store.in_index("new", &a) && !store.in_index("m", &a));
    assert_eq!(nearest(&store, "m", &[1.0, 0.0, 0.0]), [b.as_str()]);
    assert_eq!(nearest(&store, "new", &[1.0, 0.0, 0.0, 0.0]), [a.as_str()]);
    assert!(nearest(&store, "new", &[1.0, 0.0, 0.0]).is_empty());

    // Deleted for good: gone from the database and the index alike.
    store.trash(&b, t0()).unwrap();
    store.delete_forever(&b, t0()).unwrap();
    assert!(!store.in_index("m", &b));
    assert!(nearest(&store, "m", &[1.0, 0.0, 0.0]).is_empty());
    let related = store.related(&c, 5, |_| 0.0).unwrap();
    assert!(related.embedded && related.notes.is_empty(), "{related:?}");
}

#[test]
fn a_build_in_slices_misses_none_of_the_writes_made_between_its_slices() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("inkling.db");
    let ids: Vec<String> = {
        let mut store = Store::open(&path, EXPIRY_DAYS).unwrap();
        let ids: Vec<String> = (0..9)
            .map(|n| {
                capture(
                    &mut store,
                    &format!("note {n}"),
                    t0() + TimeDelta::minutes(n),
                )
            })
            .collect();
        for (n, id) in ids.iter().enumerate() {
            save(&mut store, "m", id, &[1.0, n as f32 / 10.0]);
        }
        ids
    };
    let mut store = Store::open(&path, EXPIRY_DAYS).unwrap();
    assert!(!store.index_ready() && !store.in_index("m", &ids[0]));
    // Before the build ends, related notes come from the exact search.
    let related = store.related(&ids[0], 3, |_| RELATED_FLOOR).unwrap();
    assert_eq!(related.notes.len(), 3);

    // Ids are in capture order: the first slice reads notes 0–2.
    assert_eq!(
        store.index_vectors(3).unwrap(),
        IndexProgress::Going { indexed: 3 }
    );
    assert!(store.in_index("m", &ids[2]) && !store.in_index("m", &ids[3]));
    // Between slices: one read note edited, one unread trashed, one unread edited and
    // embedded again, one read note trashed and restored.
    store
        .edit(&ids[1], &edit(Some("changed"), None, None), t0())
        .unwrap();
    store.trash(&ids[5], t0()).unwrap();
    store
        .edit(&ids[7], &edit(Some("changed too"), None, None), t0())
        .unwrap();
    save(&mut store, "m", &ids[7], &[1.0, 0.0]);
    store.trash(&ids[0], t0()).unwrap();
    store.restore(&ids[0], t0()).unwrap();
    while let IndexProgress::Going { .. } = store.index_vectors(3).unwrap() {}
    assert!(store.index_ready());

    for (n, id) in ids.iter().enumerate() {
        let expected = n != 1 && n != 5;
        assert_eq!(store.in_index("m", id), expected, "note {n}");
    }
    assert_eq!(nearest(&store, "m", &[1.0, 0.0]).len(), 5);
    assert_eq!(nearest(&store, "m", &[1.0, 0.0])[0], ids[7]);
}

/// A seeded xorshift64: the same vectors every run.
struct Random(u64);

impl Random {
    fn unit(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % 2_000_001) as f32 / 1_000_000.0 - 1.0
    }
}

#[test]
fn related_notes_through_the_index_are_the_exact_searchs_on_a_clustered_set() {
    const DIMS: usize = 64;
    let mut store = store();
    store.index_all_vectors().unwrap();
    let mut random = Random(0x9e37_79b9_7f4a_7c15);
    let centres: Vec<Vec<f32>> = (0..25)
        .map(|_| (0..DIMS).map(|_| random.unit()).collect())
        .collect();
    let mut ids = Vec::new();
    for n in 0..800 {
        let id = capture(&mut store, &format!("note {n}"), t0());
        let centre = &centres[n % centres.len()];
        let values: Vec<f32> = centre.iter().map(|c| c + 0.6 * random.unit()).collect();
        save(&mut store, "m", &id, &values);
        ids.push(id);
    }
    let (mut found, mut expected) = (0, 0);
    for id in ids.iter().step_by(20) {
        let related = store.related(id, 5, |_| RELATED_FLOOR).unwrap();
        let query = {
            let bytes: Vec<u8> = store
                .connection()
                .query_row(
                    "SELECT vector FROM note_vectors WHERE note_id = ?1",
                    [id],
                    |r| r.get(0),
                )
                .unwrap();
            inkling::storage::vectors::decode(&bytes).unwrap()
        };
        let exact = store
            .nearest_exact("m", &query, 5, RELATED_FLOOR, Scope::AllBut(id))
            .unwrap();
        expected += exact.len();
        found += related
            .notes
            .iter()
            .filter(|(note, similarity)| exact.contains(&(note.id.clone(), *similarity)))
            .count();
    }
    assert!(expected >= 150, "neighbours above the floor: {expected}");
    let recall = found as f64 / expected as f64;
    assert!(
        recall >= 0.95,
        "recall@5 {recall:.3} ({found} of {expected})"
    );
}

/// A search by meaning held to a tag on 5 notes of 300, whose nearest 200 notes overall
/// (the index's candidates) are all untagged: the filter is applied inside the scan, so
/// the 5 tagged notes are found, nearest first, before the index is built and after;
/// a tag on nearly every note finds what no filter finds.
#[test]
fn a_narrow_filter_still_finds_its_nearest_notes_by_meaning() {
    const DIMS: usize = 64;
    let mut store = store();
    tagged_notes(&mut store, 295, &["common"]);
    tagged_notes(&mut store, 5, &["rare"]);
    let with_tag = |tag: &str| ListFilter {
        tag: Some(tag.into()),
        limit: Some(ListFilter::MAX_LIMIT),
        ..ListFilter::default()
    };
    let ids_of = |store: &Store, tag: &str| -> Vec<String> {
        let mut ids: Vec<String> = store
            .list(&with_tag(tag), t0())
            .unwrap()
            .into_iter()
            .map(|note| note.id)
            .collect();
        ids.sort();
        ids
    };
    // ±1 in every dimension: `negative` of them below zero is a cosine of
    // (64 - 2 × negative) / 64 with the query (all +1), and as many differing signs.
    let values = |negative: usize, shift: usize| -> Vec<f32> {
        let mut values = vec![1.0_f32; DIMS];
        for j in 0..negative {
            values[(shift + j) % DIMS] = -1.0;
        }
        values
    };
    let common = ids_of(&store, "common");
    assert_eq!(common.len(), 295);
    for (n, id) in common.iter().enumerate() {
        // 0 to 8 signs off: a cosine of 0.75 at least.
        save(&mut store, "m", id, &values(n % 9, n * 7));
    }
    let rare = ids_of(&store, "rare");
    assert_eq!(rare.len(), 5);
    for (n, id) in rare.iter().enumerate() {
        // 12 to 16 signs off: a cosine of 0.625 down to 0.5, above the search's floor.
        save(&mut store, "m", id, &values(12 + n, n * 5));
    }
    let query = unit(&[1.0; DIMS]);
    let found = |store: &Store, k: usize| -> Vec<String> {
        store
            .search_by_meaning("m", &query, &with_tag("rare"), t0(), k, SEARCH_FLOOR)
            .unwrap()
            .into_iter()
            .map(|(note, _)| note.id)
            .collect()
    };
    assert!(!store.index_ready());
    assert_eq!(
        found(&store, 5),
        rare,
        "the exact search, before the index is built"
    );
    store.index_all_vectors().unwrap();
    assert_eq!(found(&store, 5), rare, "through the index");
    assert_eq!(found(&store, 50), rare, "a page of 50: the same 5");
    assert_eq!(found(&store, 3), rare[..3], "the nearest 3 of them");
    // Unfiltered, the nearest 5 are untagged; a broad tag finds them as well.
    let all: Vec<String> = store
        .search_by_meaning("m", &query, &ListFilter::default(), t0(), 5, SEARCH_FLOOR)
        .unwrap()
        .into_iter()
        .map(|(note, _)| note.id)
        .collect();
    assert!(all.iter().all(|id| common.contains(id)));
    let broad: Vec<String> = store
        .search_by_meaning("m", &query, &with_tag("common"), t0(), 5, SEARCH_FLOOR)
        .unwrap()
        .into_iter()
        .map(|(note, _)| note.id)
        .collect();
    assert_eq!(broad, all);
}
