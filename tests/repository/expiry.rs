//! Whether notes expire, in the store: the person's answer kept across a restart, the
//! settings' choice over it, and the expired filter and count off while it is not on.

use inkling::domain::{AiStatus, ListFilter};
use inkling::expiry::ExpiryChoice;
use inkling::storage::{Store, StoreError};

use super::{capture, t0, EXPIRY_DAYS};

#[test]
fn the_answer_is_kept_across_a_restart_and_the_settings_decide_over_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("inkling.db");
    let mut store = Store::open(&path, EXPIRY_DAYS).unwrap();
    store.take_expiry_choice(ExpiryChoice::Ask).unwrap();
    assert_eq!(store.expiry().choice(), ExpiryChoice::Ask);
    let held = store.expiry();
    store.choose_expiry(true, t0()).unwrap();
    assert_eq!(
        held.choice(),
        ExpiryChoice::On,
        "every holder sees the answer"
    );
    drop(store);

    let mut again = Store::open(&path, EXPIRY_DAYS).unwrap();
    again.take_expiry_choice(ExpiryChoice::Ask).unwrap();
    assert_eq!(again.expiry().choice(), ExpiryChoice::On, "kept");
    // The settings say off: off, whatever was answered, and no answer is taken.
    again.take_expiry_choice(ExpiryChoice::Off).unwrap();
    assert_eq!(again.expiry().choice(), ExpiryChoice::Off);
    assert!(matches!(
        again.choose_expiry(true, t0()),
        Err(StoreError::Conflict(_))
    ));
    assert_eq!(again.expiry().choice(), ExpiryChoice::Off);
}

#[test]
fn while_expiry_is_not_on_no_note_is_expired_counted_kept_or_trashed_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("inkling.db"), EXPIRY_DAYS).unwrap();
    store.take_expiry_choice(ExpiryChoice::Ask).unwrap();
    capture(&mut store, "old", t0());
    let later = t0() + chrono::Duration::days(400);
    assert_eq!(store.count_expired(later).unwrap(), 0);
    let filter = ListFilter {
        expired: true,
        ..ListFilter::default()
    };
    assert!(store.list(&filter, later).unwrap().is_empty());
    assert!(store.trash_expired(later).unwrap().is_empty());
    assert!(store.keep_expired(later).unwrap().is_empty());

    store.choose_expiry(true, later).unwrap();
    assert_eq!(store.count_expired(later).unwrap(), 1);
    assert_eq!(store.list(&filter, later).unwrap().len(), 1);
}

#[test]
fn how_long_inkling_was_used_counts_the_notes_written_here_not_the_imported() {
    let mut store = super::store();
    assert_eq!(store.oldest_written_here().unwrap(), None);
    let old = super::transfer::exported("", "imported, written long ago", AiStatus::Done);
    store.import(&[old], t0()).unwrap();
    assert_eq!(store.oldest_written_here().unwrap(), None);
    capture(
        &mut store,
        "first written here",
        t0() + chrono::Duration::days(1),
    );
    assert_eq!(
        store.oldest_written_here().unwrap(),
        Some(t0() + chrono::Duration::days(1))
    );
}
