//! The check at start (`storage::Integrity`) as the store sees it: reads go ahead while
//! it runs, a write waits for its verdict, then is made (sound) or refused with the
//! file untouched (damaged).

use inkling::domain::ListFilter;
use inkling::storage::{Integrity, Store, StoreError, Verdict};

use super::{body, capture, t0, EXPIRY_DAYS};

/// The database file and its log, byte for byte.
fn files(db: &std::path::Path) -> (Vec<u8>, Vec<u8>) {
    let wal = std::path::PathBuf::from(format!("{}-wal", db.display()));
    (
        std::fs::read(db).unwrap(),
        std::fs::read(wal).unwrap_or_default(),
    )
}

/// A file with one note, stopped cleanly, reopened under a check not yet decided.
fn a_store_being_checked(dir: &tempfile::TempDir) -> (Store, std::sync::Arc<Integrity>) {
    let db = dir.path().join("inkling.db");
    {
        let mut store = Store::open(&db, EXPIRY_DAYS).unwrap();
        capture(&mut store, "from an earlier run", t0());
        store.checkpoint().unwrap();
    }
    let integrity = Integrity::undecided();
    let store = Store::open_checked(&db, EXPIRY_DAYS, integrity.clone()).unwrap();
    (store, integrity)
}

#[test]
fn a_capture_during_the_check_waits_for_it_and_is_refused_on_a_damaged_file() {
    let dir = tempfile::tempdir().unwrap();
    let (mut store, integrity) = a_store_being_checked(&dir);
    let db = dir.path().join("inkling.db");
    // Reads do not wait.
    assert_eq!(store.list(&ListFilter::default(), t0()).unwrap().len(), 1);
    let before = files(&db);

    let waiting = std::thread::spawn(move || {
        let refused = store.capture(&body("typed during the check"), t0());
        (store, refused)
    });
    integrity.decide(Verdict::Damaged(
        "the database is damaged; recover it".into(),
    ));
    let (store, refused) = waiting.join().unwrap();

    let refused = refused.unwrap_err();
    assert!(matches!(refused, StoreError::Damaged(_)), "{refused:?}");
    assert!(refused.to_string().contains("recover it"), "{refused}");
    drop(store); // SQLite folds its log into the file on close: not into this one
    assert_eq!(files(&db), before, "nothing written");
}

#[test]
fn a_capture_during_the_check_waits_for_it_and_is_stored_on_a_sound_file() {
    let dir = tempfile::tempdir().unwrap();
    let (mut store, integrity) = a_store_being_checked(&dir);

    let waiting = std::thread::spawn(move || {
        let stored = store.capture(&body("typed during the check"), t0());
        (store, stored)
    });
    integrity.decide(Verdict::Sound);
    let (store, stored) = waiting.join().unwrap();

    let stored = stored.expect("stored once the file is found sound");
    assert_eq!(
        store.get(&stored.id).unwrap().body,
        "typed during the check"
    );
    assert_eq!(store.list(&ListFilter::default(), t0()).unwrap().len(), 2);
}

#[test]
fn the_requeue_at_every_start_writes_nothing_and_so_does_not_wait_for_the_check() {
    // Run once the model is seen at each start: with no note failed for a missing
    // model it is a read. A write would wait for the verdict on the repository's
    // thread, and every read queued behind it; here the check is never decided, so a
    // wait would hang: a minute without the answer fails the test instead.
    let dir = tempfile::tempdir().unwrap();
    let (mut store, _integrity) = a_store_being_checked(&dir);
    let (answer, answered) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        answer
            .send(
                store
                    .requeue_model_missing_failures(t0())
                    .map(|ids| ids.len()),
            )
            .unwrap();
    });
    let requeued = answered
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("the requeue waited for the check at start");
    assert_eq!(requeued.unwrap(), 0);
}
