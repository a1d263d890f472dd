//! Notes: a capture and its job, reads, list filters and pages, the counts, edits.

use chrono::Duration;
use inkling::domain::{AiStatus, ListFilter};
use inkling::storage::StoreError;

use crate::{
    assert_invariants, body, capture, due, edit, enrichment, failed_note, job_row, save_answer,
    store, t0,
};

#[test]
fn a_captured_note_is_pending_with_exactly_one_job_due_now() {
    let mut store = store();
    let note = store.capture(&body("buy milk"), t0()).unwrap();
    assert_eq!(note.ai_status, AiStatus::Pending);
    assert_eq!(store.get(&note.id).unwrap(), note);
    let (attempts, next_run_at, last_error) = job_row(&store, &note.id).unwrap();
    assert_eq!((attempts, last_error), (0, None));
    assert_eq!(next_run_at, "2026-03-01T12:00:00.000Z");
    assert_eq!(due(&store, t0())[0].note_id, note.id);
    assert_invariants(&store);
}

#[test]
fn an_unknown_id_is_not_found() {
    let mut store = store();
    assert!(matches!(store.get("nope"), Err(StoreError::NotFound(_))));
    assert!(matches!(
        store.set_next_run_at("nope", t0(), "x"),
        Err(StoreError::NotFound(_))
    ));
    assert!(matches!(
        store.increment_job_attempt("nope", t0(), "x"),
        Err(StoreError::NotFound(_))
    ));
    assert!(matches!(
        store.trash("nope", t0()),
        Err(StoreError::NotFound(_))
    ));
}

#[test]
fn the_failed_list_holds_only_failed_active_notes_newest_first() {
    let mut store = store();
    let older = failed_note(&mut store, "older failure", t0());
    let newer = failed_note(&mut store, "newer failure", t0() + Duration::minutes(1));
    let trashed = failed_note(&mut store, "trashed failure", t0());
    store.trash(&trashed, t0()).unwrap();
    capture(&mut store, "still pending", t0());
    let done = capture(&mut store, "done", t0());
    save_answer(&mut store, &done, &enrichment(&[]), t0()).unwrap();

    let failed = ListFilter {
        status: Some(AiStatus::Failed),
        ..ListFilter::default()
    };
    let listed: Vec<String> = store
        .list(&failed, t0())
        .unwrap()
        .into_iter()
        .map(|note| note.id)
        .collect();
    assert_eq!(listed, vec![newer, older]);
}

#[test]
fn count_failed_and_count_pending_count_active_notes_only() {
    let mut store = store();
    failed_note(&mut store, "f1", t0());
    failed_note(&mut store, "f2", t0());
    let trashed = failed_note(&mut store, "f3", t0());
    store.trash(&trashed, t0()).unwrap();
    capture(&mut store, "p1", t0());
    let trashed_pending = capture(&mut store, "p2", t0());
    store.trash(&trashed_pending, t0()).unwrap();

    assert_eq!(store.count_failed().unwrap(), 2);
    assert_eq!(store.count_pending().unwrap(), 1);
}

#[test]
fn lists_filter_by_status_tag_trash_and_expiry_newest_first() {
    let mut store = store();
    let old = capture(&mut store, "old", t0());
    let old_kept = capture(&mut store, "old but kept", t0() + Duration::seconds(1));
    store.keep(&old_kept, t0()).unwrap();
    let tagged = capture(&mut store, "tagged", t0() + Duration::days(40));
    save_answer(
        &mut store,
        &tagged,
        &enrichment(&["rust"]),
        t0() + Duration::days(40),
    )
    .unwrap();
    let failed = failed_note(&mut store, "failed", t0() + Duration::days(41));
    let trashed = capture(&mut store, "trashed", t0() + Duration::days(42));
    store.trash(&trashed, t0() + Duration::days(42)).unwrap();
    let now = t0() + Duration::days(45);

    let ids = |filter: ListFilter| -> Vec<String> {
        store
            .list(&filter, now)
            .unwrap()
            .into_iter()
            .map(|n| n.id)
            .collect()
    };
    assert_eq!(
        ids(ListFilter::default()),
        vec![
            failed.clone(),
            tagged.clone(),
            old_kept.clone(),
            old.clone()
        ]
    );
    assert_eq!(
        ids(ListFilter {
            status: Some(AiStatus::Failed),
            ..Default::default()
        }),
        vec![failed.clone()]
    );
    assert_eq!(
        ids(ListFilter {
            tag: Some("rust".into()),
            ..Default::default()
        }),
        vec![tagged.clone()]
    );
    assert_eq!(
        ids(ListFilter {
            trash: true,
            ..Default::default()
        }),
        vec![trashed]
    );
    assert_eq!(
        ids(ListFilter {
            expired: true,
            ..Default::default()
        }),
        vec![old.clone()],
        "kept and recent notes are not expired"
    );
    assert_eq!(store.count_expired(now).unwrap(), 1);
    assert_eq!(store.count_expired(t0() + Duration::days(29)).unwrap(), 0);
}

#[test]
fn lists_page_with_a_keyset_cursor() {
    let mut store = store();
    let ids: Vec<String> = (0..5)
        .map(|i| capture(&mut store, &format!("n{i}"), t0() + Duration::seconds(i)))
        .collect();
    let page = |before: Option<String>| -> Vec<String> {
        let filter = ListFilter {
            limit: Some(2),
            before,
            ..Default::default()
        };
        store
            .list(&filter, t0())
            .unwrap()
            .into_iter()
            .map(|n| n.id)
            .collect()
    };
    let first = page(None);
    assert_eq!(first, vec![ids[4].clone(), ids[3].clone()]);
    let second = page(first.last().cloned());
    assert_eq!(second, vec![ids[2].clone(), ids[1].clone()]);
    let third = page(second.last().cloned());
    assert_eq!(third, vec![ids[0].clone()]);
}

#[test]
fn a_changed_body_sends_a_done_note_back_to_pending_with_a_fresh_job_and_the_same_body_does_not() {
    let mut store = store();
    let id = capture(&mut store, "first", t0());
    save_answer(&mut store, &id, &enrichment(&["a"]), t0()).unwrap();

    let same = store
        .edit(
            &id,
            &edit(Some("first"), None, None),
            t0() + Duration::seconds(1),
        )
        .unwrap();
    assert!(!same.changed, "the same body is no change");
    assert_eq!(same.note.ai_status, AiStatus::Done);

    let later = t0() + Duration::seconds(2);
    let edited = store
        .edit(&id, &edit(Some("second"), None, None), later)
        .unwrap();
    assert!(edited.changed && edited.queued_afresh);
    assert_eq!(edited.was, AiStatus::Done);
    assert_eq!(edited.note.ai_status, AiStatus::Pending);
    assert_eq!(edited.note.body, "second");
    assert_eq!(
        edited.note.title.as_deref(),
        Some("A title"),
        "kept until replaced"
    );
    assert_eq!(job_row(&store, &id).map(|j| j.0), Some(0));
    assert_eq!(due(&store, later).len(), 1);
    assert_eq!(store.invariant_violations().unwrap(), Vec::<String>::new());

    // A failed note's job starts again from attempts 0 too.
    let failed = failed_note(&mut store, "fails", t0());
    let edited = store
        .edit(&failed, &edit(Some("fixed"), None, None), later)
        .unwrap();
    assert_eq!(
        (edited.note.ai_status, edited.note.ai_error),
        (AiStatus::Pending, None)
    );
    assert_eq!(job_row(&store, &failed).map(|j| j.0), Some(0));
    assert_eq!(store.invariant_violations().unwrap(), Vec::<String>::new());
}

#[test]
fn an_edit_of_a_note_in_the_trash_or_of_no_note_is_refused_and_writes_nothing() {
    let mut store = store();
    let id = capture(&mut store, "in the trash", t0());
    store.trash(&id, t0()).unwrap();
    let before = store.get(&id).unwrap();
    let refused = store.edit(
        &id,
        &edit(Some("changed"), Some("T"), None),
        t0() + Duration::seconds(1),
    );
    assert!(
        matches!(refused, Err(StoreError::Conflict(_))),
        "{refused:?}"
    );
    assert_eq!(store.get(&id).unwrap(), before);
    assert!(matches!(
        store.edit("nope", &edit(Some("x"), None, None), t0()),
        Err(StoreError::NotFound(_))
    ));
}

#[test]
fn an_edit_made_from_a_body_that_changed_meanwhile_is_refused_and_the_other_change_stays() {
    let mut store = store();
    let id = capture(&mut store, "- [ ] milk\n- [ ] eggs", t0());
    // Two windows read the same body; one edits it, then the other ticks from it.
    let read_by_both = store.get(&id).unwrap().body;
    store
        .edit(
            &id,
            &edit(Some("- [ ] milk\n- [ ] eggs\n- [ ] bread"), None, None),
            t0() + Duration::seconds(1),
        )
        .unwrap();
    let tick = edit(Some("- [x] milk\n- [ ] eggs"), None, None).made_from(read_by_both);
    let refused = store.edit(&id, &tick, t0() + Duration::seconds(2));
    assert!(
        matches!(&refused, Err(StoreError::Conflict(m)) if m.contains("changed meanwhile")),
        "{refused:?}"
    );
    assert_eq!(
        store.get(&id).unwrap().body,
        "- [ ] milk\n- [ ] eggs\n- [ ] bread",
        "the other window's edit stands"
    );
    // Made from the body as it is now, the tick goes through.
    let now = store.get(&id).unwrap().body;
    let tick = edit(Some("- [x] milk\n- [ ] eggs\n- [ ] bread"), None, None).made_from(now);
    store.edit(&id, &tick, t0() + Duration::seconds(3)).unwrap();
    assert_invariants(&store);
}

#[test]
fn edited_at_moves_on_a_persons_edit_only_not_on_the_ais_answer() {
    let mut store = store();
    let id = capture(&mut store, "first", t0());
    save_answer(
        &mut store,
        &id,
        &enrichment(&["a"]),
        t0() + Duration::seconds(1),
    )
    .unwrap();
    let answered = store.get(&id).unwrap();
    assert_ne!(answered.updated_at, answered.created_at);
    assert_eq!(answered.edited_at, None, "the AI's answer is no edit");

    let later = t0() + Duration::seconds(2);
    store
        .edit(&id, &edit(Some("second"), None, None), later)
        .unwrap();
    save_answer(
        &mut store,
        &id,
        &enrichment(&["b"]),
        t0() + Duration::seconds(3),
    )
    .unwrap();
    let note = store.get(&id).unwrap();
    assert_eq!(note.edited_at.as_deref(), Some("2026-03-01T12:00:02.000Z"));
    assert_eq!(note.updated_at, "2026-03-01T12:00:03.000Z");
}
