//! Reminders in the store: set, snoozed, done, cleared (a conflict changes nothing);
//! the reminders not yet shown for their time, and a new time shown again; the daily
//! review's facts and day; a reminder carried by export and import.

use chrono::Duration;
use inkling::domain::timestamp;
use inkling::reminders::{ReminderChange, ReminderState};
use inkling::storage::StoreError;

use crate::{assert_invariants, capture, store, t0};

#[test]
fn a_reminder_is_set_snoozed_done_and_cleared_and_a_conflict_changes_nothing() {
    let mut store = store();
    let id = capture(&mut store, "call the plumber", t0());
    let at = t0() + Duration::hours(2);
    for change in [
        ReminderChange::Done,
        ReminderChange::Reopen,
        ReminderChange::Snooze(at),
    ] {
        let refused = store.set_reminder(&id, change, t0()).unwrap_err();
        assert!(matches!(refused, StoreError::Conflict(_)), "{refused}");
    }
    let set = store
        .set_reminder(&id, ReminderChange::Set(at), t0())
        .unwrap();
    assert_eq!(set.remind_at, Some(timestamp(at)));
    assert_eq!(set.remind_state, Some(ReminderState::Open));
    let done = store.set_reminder(&id, ReminderChange::Done, t0()).unwrap();
    assert_eq!(done.remind_state, Some(ReminderState::Done));
    assert_eq!(done.remind_at, Some(timestamp(at)));
    let cleared = store
        .set_reminder(&id, ReminderChange::Clear, t0())
        .unwrap();
    assert_eq!((cleared.remind_at, cleared.remind_state), (None, None));
    store.trash(&id, t0()).unwrap();
    let refused = store
        .set_reminder(&id, ReminderChange::Set(at), t0())
        .unwrap_err();
    assert!(matches!(refused, StoreError::Conflict(_)), "{refused}");
    assert_invariants(&store);
}

#[test]
fn a_reminder_is_pending_until_shown_for_its_time_and_again_for_a_new_one() {
    let mut store = store();
    let id = capture(&mut store, "dentist\nbring the card", t0());
    let later = capture(&mut store, "renew the insurance", t0());
    let at = t0() + Duration::minutes(10);
    store
        .set_reminder(&id, ReminderChange::Set(at), t0())
        .unwrap();
    store
        .set_reminder(&later, ReminderChange::Set(at + Duration::days(3)), t0())
        .unwrap();

    // Before its time: only the next to come, for the next look.
    let before = store.pending_reminders(t0()).unwrap();
    assert_eq!(before.len(), 1);
    assert_eq!(
        (before[0].note_id.as_str(), before[0].remind_at),
        (id.as_str(), at)
    );
    assert_eq!(before[0].title, "dentist", "the first line");
    let now = at + Duration::minutes(1);
    let due = store.pending_reminders(now).unwrap();
    let ids: Vec<&str> = due.iter().map(|p| p.note_id.as_str()).collect();
    assert_eq!(ids, [id.as_str(), later.as_str()], "the due, then the next");

    store.mark_reminders_shown(&[(id.clone(), at)]).unwrap();
    let due = store.pending_reminders(now).unwrap();
    assert_eq!(due.len(), 1, "shown for its time: not pending");
    assert_eq!(due[0].note_id, later);
    // Snoozed: a new time, pending again once it comes.
    let snoozed = now + Duration::hours(1);
    store
        .set_reminder(&id, ReminderChange::Snooze(snoozed), now)
        .unwrap();
    let again = store.pending_reminders(snoozed).unwrap();
    assert_eq!(again[0].note_id, id);
    assert_eq!(again[0].state, ReminderState::Snoozed);
    // Listed up to a time, earliest first; done and trashed ones not.
    let listed = store.reminders_until(at + Duration::days(5), 100).unwrap();
    let ids: Vec<&str> = listed.iter().map(|n| n.id.as_str()).collect();
    assert_eq!(ids, [id.as_str(), later.as_str()]);
    store.set_reminder(&id, ReminderChange::Done, now).unwrap();
    store.trash(&later, now).unwrap();
    assert!(store
        .reminders_until(at + Duration::days(5), 100)
        .unwrap()
        .is_empty());
    assert!(store
        .pending_reminders(at + Duration::days(5))
        .unwrap()
        .is_empty());
    assert_invariants(&store);
}

#[test]
fn the_daily_review_counts_today_s_reminders_and_yesterday_s_unopened_notes_and_keeps_its_day() {
    let mut store = store();
    capture(&mut store, "yesterday one", t0());
    capture(&mut store, "yesterday two", t0() + Duration::hours(3));
    let opened = capture(&mut store, "yesterday, opened", t0() + Duration::hours(4));
    let today = t0() + Duration::days(1);
    let due = capture(&mut store, "today", today);
    store
        .set_reminder(&due, ReminderChange::Set(today + Duration::hours(2)), today)
        .unwrap();
    let facts = store
        .review_facts(
            today + Duration::hours(11),
            t0() - Duration::hours(12),
            today - Duration::hours(12),
        )
        .unwrap();
    assert_eq!((facts.last_day, facts.due, facts.unopened), (None, 1, 3));
    let before = store.get(&opened).unwrap();
    let seen = store.mark_opened(&opened, today).unwrap();
    assert_eq!(seen.updated_at, before.updated_at, "a view is no edit");
    let facts = store
        .review_facts(
            today + Duration::hours(11),
            t0() - Duration::hours(12),
            today - Duration::hours(12),
        )
        .unwrap();
    assert_eq!(facts.unopened, 2, "an opened note is not counted");
    // Today lists the same notes the review counts.
    let listed = store
        .unopened_between(t0() - Duration::hours(12), today - Duration::hours(12))
        .unwrap();
    assert_eq!(listed.len(), 2);
    assert!(listed.iter().all(|note| note.id != opened));
    store.mark_review_shown("2026-03-02").unwrap();
    store.mark_review_shown("2026-03-03").unwrap();
    let facts = store.review_facts(today, today, today).unwrap();
    assert_eq!(facts.last_day.as_deref(), Some("2026-03-03"));
}

#[test]
fn an_export_and_import_carry_a_reminder() {
    let mut store = store();
    let id = capture(&mut store, "call the plumber", t0());
    let at = t0() + Duration::hours(2);
    let note = store
        .set_reminder(&id, ReminderChange::Set(at), t0())
        .unwrap();
    let exported = inkling::export::ImportedNote::from(note);
    assert_eq!(exported.remind_at, Some(timestamp(at)));
    let mut other = crate::store();
    let coming = exported.validate(65536, t0()).unwrap();
    let imported = other.import(&[coming], t0()).unwrap();
    assert_eq!(imported.notes[0].remind_at, Some(timestamp(at)));
    assert_eq!(imported.notes[0].remind_state, Some(ReminderState::Open));
    assert_invariants(&other);
}

#[test]
fn the_answer_s_time_is_read_in_the_zone_given_and_never_moves_a_reminder() {
    let seoul = chrono::FixedOffset::east_opt(9 * 3600).unwrap();
    let mut store = store();
    // t0 is 2026-03-01T12:00Z: 21:00 on 1 March in Seoul.
    let answer = |phrase: &str| inkling::domain::Enrichment {
        remind_phrase: Some(phrase.into()),
        ..crate::enrichment(&[])
    };
    let saved = |store: &mut inkling::storage::Store, id: &str, phrase: &str| {
        let body = store.get(id).unwrap().body;
        store
            .save_enrichment_in(id, &body, &answer(phrase), t0(), &seoul)
            .unwrap()
    };
    let id = capture(&mut store, "내일 오전 9시 치과", t0());
    let note = saved(&mut store, &id, "내일 오전 9시");
    // 09:00 on 2 March in Seoul.
    assert_eq!(
        note.remind_suggested_at.as_deref(),
        Some("2026-03-02T00:00:00.000Z")
    );
    assert_eq!(note.remind_at, None);

    // A reminder set by hand: the next answer offers nothing and changes nothing.
    let by_hand = t0() + Duration::days(3);
    store
        .set_reminder(&id, ReminderChange::Set(by_hand), t0())
        .unwrap();
    store.request_enrichment(&id, t0()).unwrap();
    let note = saved(&mut store, &id, "내일 오전 9시");
    assert_eq!(note.remind_at, Some(timestamp(by_hand)));
    assert_eq!(note.remind_suggested_at, None);
    assert_invariants(&store);
}
