//! The notes' vectors (migration 0008): what is left to embed, newest first; a vector
//! kept only for the body it was made from and never mixed with another length; an
//! edit that makes it stale; a note's nearest notes, never one in the trash.

use chrono::TimeDelta;
use inkling::search::floors::RELATED_FLOOR;
use inkling::storage::NoteVector;

use super::{capture, edit, store, t0};

fn vector(note_id: &str, text: &str, values: &[f32]) -> NoteVector {
    NoteVector {
        note_id: note_id.into(),
        body: text.into(),
        vector: values.to_vec(),
    }
}

#[test]
fn what_is_left_to_embed_is_every_note_without_a_vector_of_the_model_newest_first() {
    let mut store = store();
    let old = capture(&mut store, "old", t0());
    let new = capture(&mut store, "new", t0() + TimeDelta::minutes(1));
    let trashed = capture(&mut store, "trashed", t0() + TimeDelta::minutes(2));
    store.trash(&trashed, t0()).unwrap();
    let backlog = store.embedding_backlog("m", 10, &[], None).unwrap();
    assert_eq!(
        backlog.notes,
        [(new.clone(), "new".into()), (old.clone(), "old".into())]
    );
    assert_eq!(backlog.dims, None);

    assert_eq!(
        store
            .save_vectors("m", &[vector(&new, "new", &[1.0, 0.0])], t0())
            .unwrap(),
        1
    );
    let backlog = store
        .embedding_backlog("m", 10, std::slice::from_ref(&old), None)
        .unwrap();
    assert!(backlog.notes.is_empty(), "done, or skipped: {backlog:?}");
    assert_eq!(backlog.dims, Some(2));
    // Among some notes alone: found by id.
    let among = store
        .embedding_backlog("other", 10, &[], Some(std::slice::from_ref(&old)))
        .unwrap();
    assert_eq!(among.notes, [(old.clone(), "old".into())]);
    // Another model: every note is left to embed again.
    assert_eq!(
        store
            .embedding_backlog("other", 10, &[], None)
            .unwrap()
            .notes
            .len(),
        2
    );
}

#[test]
fn a_vector_is_kept_only_for_its_body_and_only_with_its_models_length() {
    let mut store = store();
    let a = capture(&mut store, "a body", t0());
    let b = capture(&mut store, "b body", t0());
    let saved = store
        .save_vectors(
            "m",
            &[
                vector(&a, "a body", &[1.0, 0.0]),
                vector(&b, "an older body", &[0.0, 1.0]),
            ],
            t0(),
        )
        .unwrap();
    assert_eq!(saved, 1, "b's vector was made from a body it no longer has");
    let mixed = store.save_vectors("m", &[vector(&b, "b body", &[1.0, 0.0, 0.0])], t0());
    assert_eq!(mixed.unwrap(), 0, "never a second length for one model");

    // An edit of the body takes its vector away (a title does not).
    store
        .edit(&a, &edit(None, Some("A title"), None), t0())
        .unwrap();
    assert_eq!(
        store
            .embedding_backlog("m", 10, &[], None)
            .unwrap()
            .notes
            .len(),
        1
    );
    store
        .edit(&a, &edit(Some("a new body"), None, None), t0())
        .unwrap();
    assert_eq!(
        store
            .embedding_backlog("m", 10, &[], None)
            .unwrap()
            .notes
            .len(),
        2
    );
}

#[test]
fn related_notes_are_the_nearest_of_the_same_model_out_of_the_trash_above_the_floor() {
    related_notes_found(false);
}

#[test]
fn related_notes_are_found_the_same_through_the_index() {
    related_notes_found(true);
}

/// Before the index is built (the exact search answers) and after.
fn related_notes_found(indexed: bool) {
    let mut store = store();
    if indexed {
        store.index_all_vectors().unwrap();
    }
    assert_eq!(store.index_ready(), indexed);
    let ids: Vec<String> = (0..5)
        .map(|n| {
            capture(
                &mut store,
                &format!("note {n}"),
                t0() + TimeDelta::minutes(n),
            )
        })
        .collect();
    let values: [[f32; 2]; 5] = [
        [1.0, 0.0],
        [0.8, 0.6],
        [0.6, 0.8],
        [0.0, 1.0],
        [0.99, 0.141],
    ];
    let vectors: Vec<NoteVector> = ids
        .iter()
        .zip(values)
        .enumerate()
        .map(|(n, (id, v))| vector(id, &format!("note {n}"), &v))
        .collect();
    store.save_vectors("m", &vectors, t0()).unwrap();
    let related = store.related(&ids[0], 5, |_| RELATED_FLOOR).unwrap();
    let found: Vec<&str> = related.notes.iter().map(|(n, _)| n.id.as_str()).collect();
    assert_eq!(found, [ids[4].as_str(), ids[1].as_str(), ids[2].as_str()]);
    assert!(related.embedded);
    store.trash(&ids[4], t0()).unwrap();
    let related = store.related(&ids[0], 1, |_| RELATED_FLOOR).unwrap();
    assert_eq!(related.notes[0].0.id, ids[1]);
    // A note without a vector: none yet, said apart from "none at all".
    let lone = capture(&mut store, "lone", t0());
    let related = store.related(&lone, 5, |_| RELATED_FLOOR).unwrap();
    assert!(!related.embedded && related.notes.is_empty());
    assert!(store.related("no-such-note", 5, |_| RELATED_FLOOR).is_err());
}

/// The semantic half of a search: the nearest notes to a query's vector (of the
/// model's length only, none in the trash, none below the floor), held to the list's
/// filters as the keyword search's hits are.
#[test]
fn the_nearest_to_a_querys_vector_are_held_to_the_filters_and_never_in_the_trash() {
    use inkling::domain::{AiStatus, ListFilter};
    let mut store = store();
    let ids: Vec<String> = (0..4)
        .map(|n| {
            capture(
                &mut store,
                &format!("note {n}"),
                t0() + TimeDelta::minutes(n),
            )
        })
        .collect();
    let values: [[f32; 2]; 4] = [[1.0, 0.0], [0.8, 0.6], [0.0, 1.0], [0.6, 0.8]];
    let vectors: Vec<NoteVector> = ids
        .iter()
        .zip(values)
        .enumerate()
        .map(|(n, (id, v))| vector(id, &format!("note {n}"), &v))
        .collect();
    store.save_vectors("m", &vectors, t0()).unwrap();

    let query = [1.0_f32, 0.0];
    let nearest = store.nearest_to_vector("m", &query, 5, 0.5).unwrap();
    let order: Vec<&str> = nearest.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(order, [ids[0].as_str(), ids[1].as_str(), ids[3].as_str()]);
    assert!((nearest[1].1 - 0.8).abs() < 1e-6);
    assert_eq!(
        store.nearest_to_vector("m", &query, 1, 0.5).unwrap().len(),
        1
    );
    assert!(store
        .nearest_to_vector("other", &query, 5, 0.5)
        .unwrap()
        .is_empty());
    assert!(
        store
            .nearest_to_vector("m", &[1.0, 0.0, 0.0], 5, 0.0)
            .unwrap()
            .is_empty(),
        "another length is never compared"
    );

    let all = ListFilter::default();
    let found = store
        .search_by_meaning("m", &query, &all, t0(), 5, 0.5)
        .unwrap();
    let order: Vec<&str> = found.iter().map(|(n, _)| n.id.as_str()).collect();
    assert_eq!(order, [ids[0].as_str(), ids[1].as_str(), ids[3].as_str()]);
    let failed = ListFilter {
        status: Some(AiStatus::Failed),
        ..ListFilter::default()
    };
    assert!(store
        .search_by_meaning("m", &query, &failed, t0(), 5, 0.5)
        .unwrap()
        .is_empty());
    store.trash(&ids[0], t0()).unwrap();
    let found = store
        .search_by_meaning("m", &query, &all, t0(), 5, 0.5)
        .unwrap();
    assert_eq!(found[0].0.id, ids[1]);
    let trash = ListFilter {
        trash: true,
        ..ListFilter::default()
    };
    assert!(store
        .search_by_meaning("m", &query, &trash, t0(), 5, 0.5)
        .unwrap()
        .is_empty());
}

#[test]
fn every_note_is_walked_for_what_is_left_to_embed_one_slice_at_a_time() {
    let mut store = store();
    let ids: Vec<String> = (0..7)
        .map(|n| capture(&mut store, &format!("n{n}"), t0() + TimeDelta::minutes(n)))
        .collect();
    // Embedded: 6 and 3; in the trash: 5. Left: 4, 2, 1, 0.
    for n in [6, 3] {
        let made = vector(&ids[n], &format!("n{n}"), &[1.0, 0.0]);
        store.save_vectors("m", &[made], t0()).unwrap();
    }
    store.trash(&ids[5], t0()).unwrap();
    let names = |backlog: &inkling::storage::EmbeddingBacklog| -> Vec<String> {
        backlog.notes.iter().map(|(_, body)| body.clone()).collect()
    };
    // Slices of 3 notes, 2 found at most.
    let first = store.embedding_backlog_slice("m", 2, &[], None, 3).unwrap();
    assert_eq!(names(&first), ["n4"], "6 embedded, 5 in the trash");
    assert_eq!(
        first.next.as_deref(),
        Some(ids[4].as_str()),
        "below the slice"
    );
    let second = store
        .embedding_backlog_slice("m", 2, &[], first.next.as_deref(), 3)
        .unwrap();
    assert_eq!(names(&second), ["n2", "n1"]);
    assert_eq!(
        second.next.as_deref(),
        Some(ids[1].as_str()),
        "two found: on from the last of them"
    );
    let third = store
        .embedding_backlog_slice("m", 2, &[], second.next.as_deref(), 3)
        .unwrap();
    assert_eq!(names(&third), ["n0"]);
    assert_eq!(third.next, None, "the oldest note reached");
    // Skipped notes are left out of a slice as of the whole walk.
    let skipping = store
        .embedding_backlog_slice("m", 2, std::slice::from_ref(&ids[4]), None, 3)
        .unwrap();
    assert!(skipping.notes.is_empty());
    assert_eq!(skipping.dims, Some(2));
}
