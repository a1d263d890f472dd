//! The due-time policy's tests: on time, after a stop or a sleep, days late, many at
//! once, and a change of time zone or daylight saving, each by playing the store's part
//! (what was shown is not pending any more).

use chrono::{DateTime, Duration, Utc};

use super::*;
use crate::reminders::test_zone::Berlin2026;
use crate::reminders::when;

fn utc(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text)
        .expect("a test time")
        .with_timezone(&Utc)
}

fn reminder(id: &str, at: DateTime<Utc>) -> Pending {
    Pending {
        note_id: id.to_string(),
        title: format!("note {id}"),
        remind_at: at,
        state: ReminderState::Open,
    }
}

/// The store's part: a reminder shown for its time is no longer pending.
fn after(pending: &[Pending], decision: &Decision) -> Vec<Pending> {
    pending
        .iter()
        .filter(|p| {
            !decision
                .shown
                .iter()
                .any(|(id, at)| *id == p.note_id && *at == p.remind_at)
        })
        .cloned()
        .collect()
}

/// Looks as the actor does, from `from` to `to`, each at the look the last one asked
/// for; returns every notice shown.
fn run(mut pending: Vec<Pending>, from: DateTime<Utc>, to: DateTime<Utc>) -> Vec<Notice> {
    let mut now = from;
    let mut shown = Vec::new();
    while now <= to {
        let decision = decide(now, &pending);
        assert!(decision.next_look > now, "the next look is later");
        assert!(decision.next_look <= now + LONGEST_WAIT);
        pending = after(&pending, &decision);
        shown.extend(decision.show);
        now = decision.next_look;
    }
    shown
}

const NOON: &str = "2026-12-02T12:00:00Z";

#[test]
fn a_reminder_is_shown_once_at_its_time() {
    let at = utc(NOON) + Duration::seconds(90);
    let shown = run(
        vec![reminder("a", at)],
        utc(NOON),
        utc(NOON) + Duration::hours(3),
    );
    assert_eq!(
        shown,
        [Notice::Due {
            note_id: "a".into(),
            title: "note a".into(),
            at
        }]
    );
}

#[test]
fn the_next_look_is_the_next_reminder_or_a_minute() {
    let now = utc(NOON);
    let soon = now + Duration::seconds(20);
    let decision = decide(now, &[reminder("a", soon)]);
    assert_eq!(decision.next_look, soon);
    assert!(decision.show.is_empty() && decision.shown.is_empty());
    let later = decide(now, &[reminder("a", now + Duration::hours(5))]);
    assert_eq!(later.next_look, now + LONGEST_WAIT);
    assert_eq!(decide(now, &[]).next_look, now + LONGEST_WAIT);
}

#[test]
fn done_reminders_are_never_shown() {
    let mut done = reminder("a", utc(NOON));
    done.state = ReminderState::Done;
    let decision = decide(utc(NOON) + Duration::minutes(1), &[done]);
    assert!(decision.show.is_empty() && decision.shown.is_empty());
}

#[test]
fn missed_while_stopped_is_shown_once_when_back() {
    // Due at 12:10; the service was stopped from 12:00 to 12:40.
    let at = utc(NOON) + Duration::minutes(10);
    let back = utc(NOON) + Duration::minutes(40);
    let shown = run(vec![reminder("a", at)], back, back + Duration::hours(2));
    assert_eq!(
        shown,
        [Notice::Due {
            note_id: "a".into(),
            title: "note a".into(),
            at
        }],
        "shown once, as due: it is not an hour late"
    );
}

#[test]
fn missed_by_days_is_overdue_and_many_are_one_summary() {
    let back = utc(NOON) + Duration::days(3);
    let one = decide(back, &[reminder("a", utc(NOON))]);
    assert_eq!(
        one.show,
        [Notice::Overdue {
            note_id: "a".into(),
            title: "note a".into(),
            at: utc(NOON)
        }]
    );
    // Five missed over three days, one just now: one summary and the one due.
    let mut pending: Vec<Pending> = (0..5)
        .map(|i| reminder(&format!("old{i}"), utc(NOON) + Duration::hours(12 * i)))
        .collect();
    let now_due = back - Duration::minutes(5);
    pending.push(reminder("new", now_due));
    let shown = run(pending, back, back + Duration::days(1));
    assert_eq!(shown.len(), 2, "{shown:?}");
    assert_eq!(
        shown[0],
        Notice::Due {
            note_id: "new".into(),
            title: "note new".into(),
            at: now_due
        }
    );
    let Notice::Summary {
        due,
        overdue,
        note_ids,
    } = &shown[1]
    else {
        panic!("a summary: {shown:?}");
    };
    assert_eq!((*due, *overdue, note_ids.len()), (0, 5, 5));
}

#[test]
fn many_due_together_are_one_summary() {
    let at = utc(NOON);
    let pending: Vec<Pending> = (0..=AT_ONCE)
        .map(|i| reminder(&i.to_string(), at))
        .collect();
    let decision = decide(at, &pending);
    assert_eq!(
        decision.show,
        [Notice::Summary {
            due: AT_ONCE + 1,
            overdue: 0,
            note_ids: pending.iter().map(|p| p.note_id.clone()).collect()
        }]
    );
    assert_eq!(decision.shown.len(), AT_ONCE + 1);
}

#[test]
fn a_snoozed_reminder_is_shown_again_at_its_new_time() {
    let at = utc(NOON);
    let first = decide(at, &[reminder("a", at)]);
    assert_eq!(first.shown, [("a".to_string(), at)]);
    // Snoozed: the store moves its time an hour on, which makes it pending again.
    let mut snoozed = reminder("a", at + crate::reminders::SNOOZE);
    snoozed.state = ReminderState::Snoozed;
    let shown = run(
        vec![snoozed],
        at + Duration::minutes(1),
        at + Duration::hours(3),
    );
    assert!(
        matches!(shown.as_slice(), [Notice::Due { at: when, .. }] if *when == at + Duration::hours(1)),
        "{shown:?}"
    );
}

#[test]
fn a_time_zone_or_daylight_saving_change_moves_no_reminder() {
    // Set on Saturday 28 March 2026 in Berlin for "tomorrow 9:00": 07:00 UTC, after the
    // clocks went forward in the night. The policy sees instants only: the person's
    // move to Seoul, or the change itself, shows it at that instant, once.
    let set_at = utc("2026-03-28T11:00:00Z");
    let at = when::parse("tomorrow 9:00", set_at, &Berlin2026).expect("readable");
    assert_eq!(at, utc("2026-03-29T07:00:00Z"));
    let shown = run(vec![reminder("a", at)], set_at, set_at + Duration::days(2));
    assert!(
        matches!(shown.as_slice(), [Notice::Due { at: when, .. }] if *when == at),
        "{shown:?}"
    );
}
