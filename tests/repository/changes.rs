//! The change log (issue #36 point 3): every write to a note leaves one row in
//! `note_changes`, in its own transaction, in order; a write that changes nothing
//! leaves none; a write that fails leaves none; what follows the log (the tag index,
//! the vector index) agrees with the notes after each write; the log compacts to each
//! note's newest change and its numbers still only grow.

use chrono::Duration;
use inkling::api::changes::ChangeKind::{self, *};
use inkling::storage::{NoteVector, Store};

use super::{
    assert_invariants, capture, edit, enrichment, failed_note, save_answer, store, t0, tagged_notes,
};

/// The log after `since`, as `(note, kind)`, checking that its numbers follow each other.
fn log_after(store: &Store, since: i64) -> Vec<(String, ChangeKind)> {
    let changes = store.changes_after(since, usize::MAX).unwrap();
    for (i, change) in changes.iter().enumerate() {
        assert_eq!(
            change.seq,
            since + 1 + i as i64,
            "no gap, no repeat: {changes:?}"
        );
    }
    changes.into_iter().map(|c| (c.note_id, c.kind)).collect()
}

fn kinds(store: &Store, since: i64) -> Vec<ChangeKind> {
    log_after(store, since)
        .into_iter()
        .map(|(_, k)| k)
        .collect()
}

fn vector(store: &Store, id: &str) -> NoteVector {
    NoteVector {
        note_id: id.into(),
        body: store.get(id).unwrap().body,
        vector: vec![0.6, 0.8],
    }
}

#[test]
fn every_write_to_a_note_logs_one_change_in_order() {
    let mut store = store();
    let a = capture(&mut store, "a", t0());
    let b = failed_note(&mut store, "b", t0());
    save_answer(&mut store, &a, &enrichment(&["x"]), t0()).unwrap();
    store
        .edit(&a, &edit(Some("a, again"), None, Some(&["y"])), t0())
        .unwrap();
    store.retry_all_failed(t0()).unwrap();
    store.request_enrichment(&b, t0()).unwrap();
    store
        .save_vectors("m", &[vector(&store, &a)], t0())
        .unwrap();
    store.trash(&a, t0()).unwrap();
    store.restore(&a, t0()).unwrap();
    store.keep(&a, t0()).unwrap();
    store.rename_tag("y", "z", t0()).unwrap();
    assert_eq!(
        log_after(&store, 0),
        [
            (a.clone(), Captured),
            (b.clone(), Captured),
            (b.clone(), Failed),
            (a.clone(), Enriched),
            (a.clone(), Edited),
            (b.clone(), Requeued),
            (b.clone(), Requeued),
            (a.clone(), Embedded),
            (a.clone(), Trashed),
            (a.clone(), Restored),
            (a.clone(), Kept),
            (a.clone(), Retagged),
        ]
    );
    assert_invariants(&store);

    let last = store.latest_change().unwrap();
    let later = t0() + Duration::days(40);
    tagged_notes(&mut store, 2, &["t"]);
    let old = capture(&mut store, "old", t0());
    store.trash_expired(later).unwrap();
    capture(&mut store, "old too", t0());
    store.keep_expired(later).unwrap();
    store.delete_forever(&old, later).unwrap();
    store.empty_trash(later).unwrap();
    assert_eq!(
        kinds(&store, last),
        [
            Imported, Imported, Captured,
            // b, the two imported notes and the old one; a was kept.
            Trashed, Trashed, Trashed, Trashed, Captured, Kept, Deleted, Deleted, Deleted, Deleted,
        ]
    );
    assert_invariants(&store);
}

#[test]
fn the_hourly_purge_logs_each_note_it_deletes() {
    let mut store = store();
    let a = capture(&mut store, "a", t0());
    store.trash(&a, t0()).unwrap();
    let last = store.latest_change().unwrap();
    assert_eq!(
        store
            .purge_trash(t0() + Duration::days(1), t0() + Duration::days(1))
            .unwrap(),
        1
    );
    assert_eq!(log_after(&store, last), [(a, Deleted)]);
}

#[test]
fn a_write_that_changes_nothing_logs_nothing() {
    let mut store = store();
    let a = capture(&mut store, "a", t0());
    let last = store.latest_change().unwrap();
    store.edit(&a, &edit(Some("a"), None, None), t0()).unwrap();
    store.restore(&a, t0()).unwrap();
    assert!(store.retry_all_failed(t0()).unwrap().is_empty());
    assert!(store.trash_expired(t0()).unwrap().is_empty());
    assert_eq!(store.empty_trash(t0()).unwrap(), 0);
    store.keep(&a, t0()).unwrap();
    store.keep(&a, t0()).unwrap();
    assert_eq!(
        kinds(&store, last),
        [Kept],
        "kept once; the rest changed nothing"
    );
}

/// The note's rows and its log row are one transaction: when the log row cannot be
/// written, the note is not written either (a crash between the two is the same case).
#[test]
fn a_write_whose_log_row_fails_is_not_written_at_all() {
    let mut store = store();
    let a = capture(&mut store, "a", t0());
    store
        .connection()
        .execute_batch(
            "CREATE TEMP TRIGGER refuse_the_log BEFORE INSERT ON note_changes
             BEGIN SELECT RAISE(ABORT, 'the log is refused'); END;",
        )
        .unwrap();
    assert!(store.capture(&super::body("b"), t0()).is_err());
    assert!(store
        .edit(&a, &edit(Some("a, changed"), None, Some(&["t"])), t0())
        .is_err());
    assert!(store.trash(&a, t0()).is_err());
    store
        .connection()
        .execute_batch("DROP TRIGGER refuse_the_log")
        .unwrap();
    let note = store.get(&a).unwrap();
    assert_eq!((note.body.as_str(), note.deleted_at), ("a", None));
    let notes: i64 = store
        .connection()
        .query_row("SELECT count(*) FROM notes", [], |r| r.get(0))
        .unwrap();
    assert_eq!(notes, 1, "the capture went with its log row");
    assert_eq!(log_after(&store, 0), [(a, Captured)]);
    assert_invariants(&store);
}

#[test]
fn the_vector_index_follows_the_log() {
    let mut store = store();
    store.index_all_vectors().unwrap();
    let a = capture(&mut store, "a", t0());
    store
        .save_vectors("m", &[vector(&store, &a)], t0())
        .unwrap();
    assert!(store.in_index("m", &a));
    store.trash(&a, t0()).unwrap();
    assert!(
        !store.in_index("m", &a),
        "a note in the trash is nobody's related note"
    );
    store.restore(&a, t0()).unwrap();
    assert!(store.in_index("m", &a), "back with its stored vector");
    store.edit(&a, &edit(None, Some("A"), None), t0()).unwrap();
    assert!(store.in_index("m", &a), "a new title keeps the vector");
    store
        .edit(&a, &edit(Some("a, rewritten"), None, None), t0())
        .unwrap();
    assert!(!store.in_index("m", &a), "a new body makes it stale");
    store
        .save_vectors("m", &[vector(&store, &a)], t0())
        .unwrap();
    store.trash(&a, t0()).unwrap();
    store
        .save_vectors("m", &[vector(&store, &a)], t0())
        .unwrap();
    assert!(!store.in_index("m", &a), "saved in the trash: stays out");
}

#[test]
fn the_tag_index_follows_the_log() {
    let mut store = store();
    let a = capture(&mut store, "a", t0());
    save_answer(&mut store, &a, &enrichment(&["x", "y"]), t0()).unwrap();
    let tag_rows = |store: &Store| -> Vec<String> {
        let mut stmt = store
            .connection()
            .prepare("SELECT tag FROM note_tags WHERE note_id = ?1 ORDER BY tag")
            .unwrap();
        stmt.query_map([&a], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    };
    assert_eq!(tag_rows(&store), ["x", "y"]);
    store
        .edit(&a, &edit(None, None, Some(&["y", "z"])), t0())
        .unwrap();
    assert_eq!(tag_rows(&store), ["y", "z"]);
    store.rename_tag("z", "y", t0()).unwrap();
    assert_eq!(
        tag_rows(&store),
        ["y"],
        "merged into the tag it already had"
    );
    assert_invariants(&store);
}

#[test]
fn the_log_compacts_to_each_notes_newest_change_and_its_numbers_still_grow() {
    let mut store = store();
    let a = capture(&mut store, "a", t0());
    let b = capture(&mut store, "b", t0());
    store.trash(&a, t0()).unwrap();
    store.restore(&a, t0()).unwrap();
    let newest = store.latest_change().unwrap();
    assert_eq!(store.compact_changes(later()).unwrap(), 2);
    let kept: Vec<(i64, String, ChangeKind)> = store
        .changes_after(0, 10)
        .unwrap()
        .into_iter()
        .map(|c| (c.seq, c.note_id, c.kind))
        .collect();
    assert_eq!(
        kept,
        [(2, b.clone(), Captured), (newest, a.clone(), Restored)]
    );
    store.trash(&b, t0()).unwrap();
    assert_eq!(store.latest_change().unwrap(), newest + 1);
    // The newest row deleted: its number is still never handed out again.
    store
        .connection()
        .execute("DELETE FROM note_changes WHERE seq = ?1", [newest + 1])
        .unwrap();
    store.keep(&b, t0()).unwrap();
    assert_eq!(store.latest_change().unwrap(), newest + 2);
}

/// A cut-off after every change the tests make at `t0`: all of them old enough.
fn later() -> chrono::DateTime<chrono::Utc> {
    t0() + Duration::hours(1)
}

/// The log as `(seq, note, kind)`, gaps and all.
fn rows(store: &Store) -> Vec<(i64, String, ChangeKind)> {
    store
        .changes_after(0, usize::MAX)
        .unwrap()
        .into_iter()
        .map(|c| (c.seq, c.note_id, c.kind))
        .collect()
}

#[test]
fn the_compaction_goes_a_window_at_a_time_and_a_later_pass_reads_only_what_came_since() {
    let mut store = store();
    let a = capture(&mut store, "a", t0()); // 1
    let b = capture(&mut store, "b", t0()); // 2
    let c = capture(&mut store, "c", t0()); // 3
    store.edit(&a, &edit(Some("a2"), None, None), t0()).unwrap(); // 4
    store.trash(&b, t0()).unwrap(); // 5
    store.restore(&b, t0()).unwrap(); // 6

    // The first window, changes 1 and 2, names a and b: their superseded changes in
    // it go (1, 2); b's 5, after the window, waits for its own.
    let step = store.compact_changes_step(2, later()).unwrap();
    assert_eq!((step.removed, step.upto, step.done), (2, 2, false));
    assert_eq!(
        rows(&store),
        [
            (3, c.clone(), Captured),
            (4, a.clone(), Edited),
            (5, b.clone(), Trashed),
            (6, b.clone(), Restored)
        ]
    );
    let step = store.compact_changes_step(2, later()).unwrap();
    assert_eq!(
        (step.removed, step.upto),
        (0, 4),
        "c and a have one change each"
    );
    let step = store.compact_changes_step(2, later()).unwrap();
    assert_eq!((step.removed, step.upto, step.done), (1, 6, true));
    let step = store.compact_changes_step(2, later()).unwrap();
    assert_eq!(
        (step.removed, step.upto, step.done),
        (0, 6, true),
        "nothing new"
    );

    // c changes: its change 3, behind the point reached, is superseded by change 7,
    // which the next pass reads.
    store.trash(&c, t0()).unwrap(); // 7
    let step = store.compact_changes_step(2, later()).unwrap();
    assert_eq!((step.removed, step.upto, step.done), (1, 7, true));
    assert_eq!(
        rows(&store),
        [
            (4, a.clone(), Edited),
            (6, b.clone(), Restored),
            (7, c.clone(), Trashed)
        ]
    );
    // A reader from any point still hears of every note that changed after it.
    let since_2: Vec<String> = rows(&store)
        .into_iter()
        .filter(|(seq, _, _)| *seq > 2)
        .map(|(_, id, _)| id)
        .collect();
    assert_eq!(since_2, [a, b, c]);
    assert_invariants(&store);
}

#[test]
fn the_point_the_compaction_reached_outlives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("inkling.db");
    let a = {
        let mut store = Store::open(&path, crate::EXPIRY_DAYS).unwrap();
        let a = capture(&mut store, "a", t0());
        store.edit(&a, &edit(Some("a2"), None, None), t0()).unwrap();
        assert_eq!(store.compact_changes(later()).unwrap(), 1);
        a
    };
    let mut store = Store::open(&path, crate::EXPIRY_DAYS).unwrap();
    // A step of one number: from the start of the log it would read change 1 and not
    // be done; from the point kept (2) there is nothing past it.
    let step = store.compact_changes_step(1, later()).unwrap();
    assert_eq!(
        (step.removed, step.upto, step.done),
        (0, 2, true),
        "the next pass starts where the last ended, not at the log's start"
    );
    assert_eq!(rows(&store), [(2, a, Edited)]);
}

#[test]
fn changes_younger_than_the_cut_off_are_kept_every_one() {
    let mut store = store();
    let a = capture(&mut store, "a", t0()); // 1
    store.edit(&a, &edit(Some("a2"), None, None), t0()).unwrap(); // 2
    let young = t0() + Duration::hours(2);
    store
        .edit(&a, &edit(Some("a3"), None, None), young)
        .unwrap(); // 3
    store
        .edit(&a, &edit(Some("a4"), None, None), young)
        .unwrap(); // 4

    // Cut off at t0 + 1 h: changes 1 and 2 are old and superseded, and go; 3 and 4 are
    // young and stay, though 3 is superseded too.
    let cut_off = t0() + Duration::hours(1);
    assert_eq!(store.compact_changes(cut_off).unwrap(), 2);
    assert_eq!(
        rows(&store),
        [(3, a.clone(), Edited), (4, a.clone(), Edited)]
    );
    // An hour later they are old too: 3 goes (4 is the newest).
    assert_eq!(
        store.compact_changes(young + Duration::hours(1)).unwrap(),
        1
    );
    assert_eq!(rows(&store), [(4, a, Edited)]);
    assert_invariants(&store);
}

#[test]
fn a_database_from_before_the_log_gets_one_change_for_each_note_it_holds() {
    use inkling::storage::migrations::{migrate, MIGRATIONS};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    {
        let mut conn = rusqlite::Connection::open(&path).unwrap();
        migrate(&mut conn, &MIGRATIONS[..8]).unwrap();
        conn.execute_batch(
            "INSERT INTO notes (id, body, created_at, updated_at, deleted_at)
               VALUES ('n2', 'second', '2026-01-02T00:00:00.000Z', '2026-01-05T00:00:00.000Z', NULL),
                      ('n1', 'first', '2026-01-01T00:00:00.000Z', '2026-01-03T00:00:00.000Z',
                       '2026-01-03T00:00:00.000Z');",
        )
        .unwrap();
    }
    let store = Store::open(&path, super::EXPIRY_DAYS).unwrap();
    let changes = store.changes_after(0, 10).unwrap();
    let seen: Vec<(i64, &str, ChangeKind, &str)> = changes
        .iter()
        .map(|c| (c.seq, c.note_id.as_str(), c.kind, c.at.as_str()))
        .collect();
    assert_eq!(
        seen,
        [
            (1, "n1", Trashed, "2026-01-03T00:00:00.000Z"),
            (2, "n2", Captured, "2026-01-05T00:00:00.000Z"),
        ]
    );
}
