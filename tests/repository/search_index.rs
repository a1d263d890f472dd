//! The search index written behind the captures (`src/storage/store/search_index.rs`,
//! migration 0015): a captured note waits for its entries, a search writes them first
//! so it never misses the note, an edit or a deletion while it waits is followed, a
//! batch is written once enough notes wait, an import is searchable when it returns,
//! the waiting notes survive a restart, and a search while the check at start reads the
//! file does not wait for it.

use inkling::domain::ListFilter;
use inkling::storage::{Store, INDEX_BATCH};

use crate::{assert_invariants, capture, edit, store, t0, tagged_notes, EXPIRY_DAYS};

fn found(store: &Store, text: &str) -> Vec<String> {
    crate::search::search(store, text, &ListFilter::default())
}

#[test]
fn a_note_captured_waits_for_its_entries_and_the_next_search_writes_them_first() {
    let mut store = store();
    let id = capture(&mut store, "the plumber comes on friday", t0());
    assert_eq!(store.search_pending().unwrap(), 1);
    assert_invariants(&store);
    assert_eq!(found(&store, "plumber"), std::slice::from_ref(&id));
    assert_eq!(store.search_pending().unwrap(), 0, "written by the search");
    // Nothing waits: a search writes nothing.
    assert_eq!(store.index_pending().unwrap(), 0);
    assert_eq!(found(&store, "friday"), [id]);
    assert_invariants(&store);
}

#[test]
fn a_note_edited_or_deleted_while_it_waits_is_found_as_it_is_then() {
    let mut store = store();
    let edited = capture(&mut store, "buy oat milk", t0());
    let deleted = capture(&mut store, "oat cakes recipe", t0());
    store
        .edit(
            &edited,
            &edit(Some("buy soy milk"), Some("Shopping"), None),
            t0(),
        )
        .unwrap();
    store.trash(&deleted, t0()).unwrap();
    store.delete_forever(&deleted, t0()).unwrap();
    assert_eq!(
        store.search_pending().unwrap(),
        1,
        "the deleted note's went with it"
    );
    assert_invariants(&store);
    assert!(
        found(&store, "oat").is_empty(),
        "its old words are not in the index"
    );
    assert_eq!(found(&store, "soy"), std::slice::from_ref(&edited));
    assert_eq!(found(&store, "shopping"), [edited], "its title too");
    assert_invariants(&store);
}

#[test]
fn a_batch_is_written_once_enough_notes_wait_and_not_before() {
    let mut store = store();
    for i in 0..INDEX_BATCH - 1 {
        capture(&mut store, &format!("note number {i}"), t0());
    }
    store.index_if_behind();
    assert_eq!(store.search_pending().unwrap(), INDEX_BATCH - 1);
    capture(&mut store, "the last of the batch", t0());
    store.index_if_behind();
    assert_eq!(store.search_pending().unwrap(), 0);
    assert_invariants(&store);
}

#[test]
fn an_import_writes_its_notes_search_entries_before_it_returns() {
    let mut store = store();
    tagged_notes(&mut store, 50, &["garden"]);
    assert_eq!(store.search_pending().unwrap(), 0);
    assert_invariants(&store);
}

#[test]
fn notes_waiting_for_their_entries_are_still_waiting_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("inkling.db");
    let mut store = Store::open(&path, EXPIRY_DAYS).unwrap();
    let id = capture(&mut store, "the dentist on tuesday", t0());
    drop(store);
    let store = Store::open(&path, EXPIRY_DAYS).unwrap();
    assert_eq!(store.search_pending().unwrap(), 1);
    assert_eq!(found(&store, "dentist"), [id]);
    assert_invariants(&store);
}

/// Reads go ahead of the check at start; a search is a read: while the check is still
/// reading the file it searches without the notes left pending rather than wait (a
/// write would), and writes them once the check has decided.
#[test]
fn a_search_while_the_check_at_start_reads_the_file_does_not_wait_for_it() {
    use inkling::storage::{Integrity, Verdict};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("inkling.db");
    let mut store = Store::open(&path, EXPIRY_DAYS).unwrap();
    let id = capture(&mut store, "the dentist on tuesday", t0());
    drop(store);
    let integrity = Integrity::undecided();
    let store = Store::open_checked(&path, EXPIRY_DAYS, integrity.clone()).unwrap();
    // A search that waited for the check would wait for ever here (it is never decided
    // while it runs): it runs on a thread of its own, and a minute without its answer
    // fails the test instead of hanging it.
    let (answer, answered) = std::sync::mpsc::channel();
    let searching = std::thread::spawn(move || {
        let hits = found(&store, "dentist");
        answer.send(hits).unwrap();
        store
    });
    let hits = answered
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("the search waited for the check at start");
    assert!(hits.is_empty(), "without the note still pending");
    let store = searching.join().unwrap();
    assert_eq!(store.search_pending().unwrap(), 1);
    integrity.decide(Verdict::Sound);
    assert_eq!(found(&store, "dentist"), [id]);
    assert_eq!(store.search_pending().unwrap(), 0);
}
