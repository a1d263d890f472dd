//! Tags: set by hand and kept from the AI, tidied to the spelling in use, counted,
//! renamed and merged.

use inkling::domain::{AiStatus, ListFilter};
use inkling::storage::{Store, StoreError};

use crate::{capture, edit, enrichment, save_answer, store, t0, tagged_notes};

fn tag_counts(store: &Store) -> Vec<(String, u64)> {
    store
        .tags(None)
        .unwrap()
        .into_iter()
        .map(|t| (t.tag, t.count))
        .collect()
}

#[test]
fn a_title_and_tags_set_by_hand_are_kept_from_the_ai_and_searchable_at_once() {
    let mut store = store();
    let id = capture(&mut store, "a note about stamps", t0());
    let edited = store
        .edit(
            &id,
            &edit(None, Some("Buy stamps"), Some(&["Post Office", "errands"])),
            t0(),
        )
        .unwrap();
    assert_eq!(
        edited.note.ai_status,
        AiStatus::Pending,
        "no body change: the job stays"
    );
    assert!(edited.note.title_set_by_user && edited.note.tags_set_by_user);

    let saved = save_answer(&mut store, &id, &enrichment(&["mail"]), t0()).unwrap();
    assert_eq!(saved.ai_status, AiStatus::Done);
    assert_eq!(saved.title.as_deref(), Some("Buy stamps"));
    assert_eq!(saved.tags, ["post office", "errands"]);
    assert_eq!(
        saved.summary.as_deref(),
        Some("A summary."),
        "the summary is the AI's"
    );
    assert_eq!(
        tag_counts(&store),
        [("errands".to_string(), 1), ("post office".to_string(), 1)],
        "the AI's tag was not stored"
    );
    let query = inkling::storage::SearchQuery::parse("stamps").unwrap();
    let hits = store.search(&query, &ListFilter::default(), t0()).unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(store.invariant_violations().unwrap(), Vec::<String>::new());
}

#[test]
fn tags_that_come_in_take_the_spelling_in_use_and_tags_are_counted_most_used_first() {
    let mut store = store();
    for (i, tags) in [
        &["machine learning", "food"][..],
        &["machine learning"],
        &["food"],
        &["food"],
    ]
    .iter()
    .enumerate()
    {
        let id = capture(&mut store, &format!("note {i}"), t0());
        save_answer(&mut store, &id, &enrichment(tags), t0()).unwrap();
    }
    let id = capture(&mut store, "another", t0());
    let saved = save_answer(
        &mut store,
        &id,
        &enrichment(&["machine-learning", "Food", "new"]),
        t0(),
    )
    .unwrap();
    assert_eq!(saved.tags, ["machine learning", "food", "new"]);
    let by_hand = capture(&mut store, "by hand", t0());
    let edited = store
        .edit(
            &by_hand,
            &edit(None, None, Some(&["Machine_Learning"])),
            t0(),
        )
        .unwrap();
    assert_eq!(edited.note.tags, ["machine learning"]);
    assert_eq!(
        tag_counts(&store),
        [
            ("food".to_string(), 4),
            ("machine learning".to_string(), 4),
            ("new".to_string(), 1)
        ]
    );
    // Notes in the trash are not counted.
    store.trash(&id, t0()).unwrap();
    assert_eq!(store.tags(Some(1)).unwrap()[0].count, 3);
}

#[test]
fn a_rename_changes_every_note_and_merges_into_a_tag_that_exists_in_one_go() {
    let mut store = store();
    let mut ids = Vec::new();
    for tags in [
        &["cooking"][..],
        &["cooking", "cooking tips"],
        &["cooking tips"],
    ] {
        let id = capture(&mut store, &format!("{tags:?}"), t0());
        save_answer(&mut store, &id, &enrichment(tags), t0()).unwrap();
        ids.push(id);
    }
    store.trash(&ids[2], t0()).unwrap();

    let renamed = store.rename_tag("cooking tips", "cooking", t0()).unwrap();
    assert_eq!(
        (renamed.tag.as_str(), renamed.notes, renamed.merged),
        ("cooking", 2, true)
    );
    assert_eq!(
        store.get(&ids[1]).unwrap().tags,
        ["cooking"],
        "merged, not doubled"
    );
    assert_eq!(
        store.get(&ids[2]).unwrap().tags,
        ["cooking"],
        "in the trash too"
    );
    assert_eq!(tag_counts(&store), [("cooking".to_string(), 2)]);

    let renamed = store.rename_tag("cooking", "food", t0()).unwrap();
    assert_eq!((renamed.notes, renamed.merged), (3, false));
    let query = inkling::storage::SearchQuery::parse("food").unwrap();
    assert_eq!(
        store
            .search(&query, &ListFilter::default(), t0())
            .unwrap()
            .len(),
        2
    );
    assert!(matches!(
        store.rename_tag("cooking", "x", t0()),
        Err(StoreError::NoSuchTag(_))
    ));
    assert_eq!(store.invariant_violations().unwrap(), Vec::<String>::new());

    // The counts follow restores and deletes for good (a cascade) too.
    store.restore(&ids[2], t0()).unwrap();
    assert_eq!(tag_counts(&store), [("food".to_string(), 3)]);
    store.trash(&ids[0], t0()).unwrap();
    store.delete_forever(&ids[0], t0()).unwrap();
    assert_eq!(tag_counts(&store), [("food".to_string(), 2)]);
    assert_eq!(store.invariant_violations().unwrap(), Vec::<String>::new());
}

fn index_structure(store: &Store, index: &str) -> Vec<u8> {
    store
        .connection()
        .query_row(
            &format!("SELECT block FROM {index}_data WHERE id = 10"),
            [],
            |r| r.get(0),
        )
        .unwrap()
}

fn found(store: &Store, text: &str) -> usize {
    let query = inkling::storage::SearchQuery::parse(text).unwrap();
    let filter = ListFilter {
        limit: Some(200),
        ..ListFilter::default()
    };
    store.search(&query, &filter, t0()).unwrap().len()
}

#[test]
fn a_rename_goes_in_slices_each_whole_and_one_cut_short_by_a_crash_is_finished_after() {
    use inkling::storage::{RenameProgress, RENAME_SLICE_NOTES};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("inkling.db");
    let total = 2 * RENAME_SLICE_NOTES + 10;
    {
        let mut store = Store::open(&path, crate::EXPIRY_DAYS).unwrap();
        tagged_notes(&mut store, total - 10, &["gardening", "home"]);
        tagged_notes(&mut store, 10, &["gardening", "garden"]);
        tagged_notes(&mut store, 5, &["home"]);
        let rename = store.begin_tag_rename("gardening", "garden").unwrap();
        assert!(rename.merged);
        let (bodies, titles) = (
            index_structure(&store, "search_bodies"),
            index_structure(&store, "search_titles"),
        );
        let Ok(RenameProgress::Going(rename)) =
            store.rename_tag_slice(rename, RENAME_SLICE_NOTES, t0())
        else {
            panic!("one slice of {total} notes is not all of them");
        };
        assert_eq!(rename.notes, RENAME_SLICE_NOTES as u64);
        assert_eq!(
            (
                index_structure(&store, "search_bodies"),
                index_structure(&store, "search_titles")
            ),
            (bodies, titles),
            "a rename touches the tags' index only"
        );
        // The process dies here: only what was committed is on disk.
    }
    let mut store = Store::open(&path, crate::EXPIRY_DAYS).unwrap();
    // Consistent between slices: every note, its tag rows, the counts and the index
    // agree; the notes done have the new tag, the others the old one.
    assert_eq!(store.invariant_violations().unwrap(), Vec::<String>::new());
    let left = (total - RENAME_SLICE_NOTES) as u64;
    assert_eq!(
        tag_counts(&store),
        [
            ("home".to_string(), (total - 10 + 5) as u64),
            // The slice's notes, and the ten that had both and are not done yet.
            ("garden".to_string(), RENAME_SLICE_NOTES as u64 + 10),
            ("gardening".to_string(), left),
        ]
    );
    assert_eq!(found(&store, "gardening"), 200.min(left as usize));
    // Recorded, so it is finished rather than begun again, and not begun twice.
    let unfinished = store.unfinished_tag_renames().unwrap();
    assert_eq!(unfinished.len(), 1);
    assert_eq!(unfinished[0].notes, RENAME_SLICE_NOTES as u64);
    assert!(matches!(
        store.begin_tag_rename("gardening", "yard"),
        Err(StoreError::Conflict(_))
    ));
    let mut rename = unfinished.into_iter().next().unwrap();
    let renamed = loop {
        match store
            .rename_tag_slice(rename, RENAME_SLICE_NOTES, t0())
            .unwrap()
        {
            RenameProgress::Going(going) => rename = going,
            RenameProgress::Done(renamed) => break renamed,
        }
    };
    assert_eq!((renamed.notes, renamed.merged), (total as u64, true));
    assert!(store.unfinished_tag_renames().unwrap().is_empty());
    assert_eq!(
        tag_counts(&store),
        [
            ("garden".to_string(), total as u64),
            ("home".to_string(), (total - 10 + 5) as u64),
        ]
    );
    assert_eq!(found(&store, "gardening"), 0);
    assert_eq!(found(&store, "garden"), 200);
    assert_eq!(store.invariant_violations().unwrap(), Vec::<String>::new());
    // Merged, not doubled, on the notes that had both.
    let both = store
        .list(
            &ListFilter {
                tag: Some("garden".into()),
                limit: Some(1),
                ..ListFilter::default()
            },
            t0(),
        )
        .unwrap();
    assert_eq!(both[0].tags, ["garden"]);
}
