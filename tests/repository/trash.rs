//! The trash: a trashed note is never due, counted or retried; expiry; the purge.

use chrono::Duration;
use inkling::domain::{AiStatus, ListFilter};
use inkling::storage::StoreError;

use crate::{assert_invariants, capture, due, failed_note, job_row, store, t0};

#[test]
fn a_trashed_note_is_never_due_counted_listed_as_active_or_retried_until_restored() {
    let mut store = store();
    let pending = capture(&mut store, "pending", t0());
    let failed = failed_note(&mut store, "failed", t0());
    store.trash(&pending, t0()).unwrap();
    store.trash(&failed, t0()).unwrap();

    assert!(due(&store, t0() + Duration::days(1)).is_empty());
    assert!(store.all_jobs().unwrap().is_empty());
    assert_eq!(store.counts(t0()).unwrap().pending, 0);
    assert_eq!(store.count_failed().unwrap(), 0);
    assert!(store.list(&ListFilter::default(), t0()).unwrap().is_empty());
    assert!(store.retry_all_failed(t0()).unwrap().is_empty());
    assert_eq!(store.get(&failed).unwrap().ai_status, AiStatus::Failed);
    let trash = ListFilter {
        trash: true,
        ..ListFilter::default()
    };
    assert_eq!(store.list(&trash, t0()).unwrap().len(), 2);
    assert_invariants(&store);

    store.restore(&pending, t0()).unwrap();
    assert_eq!(due(&store, t0())[0].note_id, pending);
    assert_eq!(store.count_pending().unwrap(), 1);
}

#[test]
fn purge_trash_deletes_only_old_trash_with_its_jobs_and_tags() {
    let mut store = store();
    let old = capture(&mut store, "old", t0());
    let recent = capture(&mut store, "recent", t0());
    let active = capture(&mut store, "active", t0());
    store.trash(&old, t0()).unwrap();
    store.trash(&recent, t0() + Duration::days(20)).unwrap();

    let purged = store
        .purge_trash(t0() + Duration::days(10), t0() + Duration::days(10))
        .unwrap();

    assert_eq!(purged, 1);
    assert!(matches!(store.get(&old), Err(StoreError::NotFound(_))));
    assert!(store.get(&recent).is_ok());
    assert!(store.get(&active).is_ok());
    assert_eq!(job_row(&store, &old), None);
    assert_invariants(&store);
}

#[test]
fn trash_expired_moves_every_expired_note_and_nothing_else() {
    let mut store = store();
    let old = capture(&mut store, "old", t0());
    let old_kept = capture(&mut store, "old, kept", t0());
    store.keep(&old_kept, t0()).unwrap();
    let recent = capture(&mut store, "recent", t0() + Duration::days(20));
    let now = t0() + Duration::days(31);

    assert_eq!(store.trash_expired(now).unwrap(), vec![old.clone()]);

    assert!(store.get(&old).unwrap().deleted_at.is_some());
    assert!(store.get(&old_kept).unwrap().deleted_at.is_none());
    assert!(store.get(&recent).unwrap().deleted_at.is_none());
    assert_eq!(store.count_expired(now).unwrap(), 0);
    assert_invariants(&store);
}
