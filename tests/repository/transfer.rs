//! Import: notes brought in as they are, in one transaction.

use chrono::Duration;
use inkling::domain::{timestamp, AiStatus, ListFilter, Note};

use crate::{assert_invariants, capture, due, job_row, store, t0};

/// A note as an export file holds it.
pub(super) fn exported(id: &str, text: &str, ai_status: AiStatus) -> Note {
    Note {
        id: id.into(),
        body: text.into(),
        title: Some("Imported".into()),
        summary: Some("A summary.".into()),
        tags: vec!["moved".into()],
        ai_status,
        ai_error: None,
        created_at: "2026-01-01T00:00:00.000Z".into(),
        updated_at: "2026-01-02T00:00:00.000Z".into(),
        deleted_at: None,
        kept_at: Some("2026-01-03T00:00:00.000Z".into()),
        title_set_by_user: true,
        tags_set_by_user: false,
        ai_read_chars: None,
        edited_at: None,
        remind_at: None,
        remind_state: None,
        kind: inkling::domain::NoteKind::Note,
        imported_at: None,
        remind_suggested_at: None,
        remind_suggestion_dismissed: false,
        opened_at: None,
    }
}

#[test]
fn an_import_stores_notes_as_they_are_skips_known_ids_and_queues_the_pending_ones() {
    let mut store = store();
    let here = capture(&mut store, "already here", t0());
    let now = t0() + Duration::hours(1);
    let notes = [
        exported("", "done elsewhere", AiStatus::Done),
        exported("from-elsewhere", "pending elsewhere", AiStatus::Pending),
        exported(&here, "the same id, another body", AiStatus::Done),
    ];

    let imported = store.import(&notes, now).unwrap();

    assert_eq!(imported.skipped, 1, "a note whose id exists is skipped");
    assert_eq!(imported.notes.len(), 2);
    let done = &imported.notes[0];
    assert!(!done.id.is_empty(), "a note without an id gets one");
    assert_eq!(store.get(&done.id).unwrap(), *done, "stored as it was");
    assert_eq!(store.get(&here).unwrap().body, "already here");
    // A pending note gets its job, due now, as a capture does; a done one none.
    assert_eq!(
        job_row(&store, "from-elsewhere").unwrap(),
        (0, timestamp(now), None)
    );
    assert_eq!(job_row(&store, &done.id), None);
    let due_now: Vec<String> = due(&store, now).into_iter().map(|j| j.note_id).collect();
    assert_eq!(due_now, [here.clone(), "from-elsewhere".to_string()]);
    let tags = store.tags(None).unwrap();
    assert_eq!((tags[0].tag.as_str(), tags[0].count), ("moved", 2));
    assert_eq!(store.list(&ListFilter::default(), now).unwrap().len(), 3);
    assert_invariants(&store);
}

#[test]
fn an_import_that_cannot_finish_stores_nothing() {
    let mut store = store();
    // Sabotage: the second note's insert fails, after the first was stored.
    store
        .connection()
        .execute_batch(
            "CREATE TRIGGER sabotage BEFORE INSERT ON notes WHEN NEW.body = 'poison'
             BEGIN SELECT RAISE(ABORT, 'sabotaged'); END;",
        )
        .unwrap();
    let notes = [
        exported("first", "fine", AiStatus::Pending),
        exported("second", "poison", AiStatus::Done),
    ];

    assert!(store.import(&notes, t0()).is_err());

    assert!(store.list(&ListFilter::default(), t0()).unwrap().is_empty());
    assert_eq!(job_row(&store, "first"), None);
    assert!(store.tags(None).unwrap().is_empty());
    assert_invariants(&store);
}

/// An answer saved from Ask (issue #42 point 3) is stored as one, read back as one, and
/// an export carries it so an import keeps it one; a note says nothing of its kind.
#[test]
fn an_answer_stays_an_answer_through_a_capture_an_export_and_an_import() {
    use inkling::domain::{NoteBody, NoteKind};
    use inkling::export::ImportedNote;
    let mut store = store();
    let body = NoteBody::parse("Q: when?\n\nOn Sunday [1].".into(), 1000).unwrap();
    let answer = store.capture_kind(&body, NoteKind::Answer, t0()).unwrap();
    assert_eq!(answer.kind, NoteKind::Answer);
    assert_eq!(store.get(&answer.id).unwrap(), answer, "stored as it was");
    let note = capture(&mut store, "a note", t0());
    assert_eq!(store.get(&note).unwrap().kind, NoteKind::Note);

    let file = serde_json::to_value(ImportedNote::from(store.get(&answer.id).unwrap())).unwrap();
    assert_eq!(file["kind"], "answer");
    let plain = serde_json::to_value(ImportedNote::from(store.get(&note).unwrap())).unwrap();
    assert_eq!(plain.get("kind"), None);

    let mut moved = exported("an-answer", "Q: why?\n\nBecause [1].", AiStatus::Done);
    moved.kind = NoteKind::Answer;
    store.import(&[moved], t0()).unwrap();
    assert_eq!(store.get("an-answer").unwrap().kind, NoteKind::Answer);
    assert_invariants(&store);
}
