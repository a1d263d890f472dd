use chrono::{DateTime, Utc};

use super::*;
use crate::reminders::test_zone::Berlin2026;

fn utc(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text)
        .unwrap()
        .with_timezone(&Utc)
}

#[test]
fn only_the_note_s_own_words_are_taken() {
    let note = "Call the plumber   Tomorrow at 9 about the sink";
    assert_eq!(
        quoted(" tomorrow AT 9 ", note),
        Ok(Some("tomorrow at 9".into()))
    );
    assert_eq!(quoted("", note), Ok(None));
    assert_eq!(quoted("  ", note), Ok(None));
    assert_eq!(quoted("tomorrow at 10", note), Err(Dropped::NotInNote));
    assert_eq!(
        quoted("2026-03-02T09:00:00Z", note),
        Err(Dropped::NotInNote),
        "a time the model worked out itself is not the note's"
    );
    assert_eq!(
        quoted("내일 오전 9시", "배관공에게 내일 오전 9시에 전화"),
        Ok(Some("내일 오전 9시".into()))
    );
    let long = "a".repeat(MAX_PHRASE_CHARS + 1);
    assert_eq!(quoted(&long, &long), Err(Dropped::TooLong));
}

#[test]
fn a_phrase_is_read_against_the_capture_time_in_the_person_s_zone() {
    // Captured at 23:30 in Berlin on 1 March; the AI reads it the next morning.
    let captured = utc("2026-03-01T22:30:00Z");
    let now = utc("2026-03-02T06:00:00Z");
    assert_eq!(
        resolve("tomorrow at 9", captured, now, &Berlin2026),
        Ok(utc("2026-03-02T08:00:00Z")),
        "the day after the capture, 09:00 on the wall clock"
    );
    assert_eq!(
        resolve("내일 오전 9시", captured, now, &Berlin2026),
        Ok(utc("2026-03-02T08:00:00Z"))
    );
    // Across the change to summer time: still 09:00 on the wall.
    assert_eq!(
        resolve(
            "tomorrow 9:00",
            utc("2026-03-28T12:00:00Z"),
            utc("2026-03-28T12:00:01Z"),
            &Berlin2026
        ),
        Ok(utc("2026-03-29T07:00:00Z"))
    );
}

#[test]
fn a_phrase_that_is_no_time_to_come_gives_none() {
    let captured = utc("2026-03-01T10:00:00Z");
    assert_eq!(
        resolve("sometime soon", captured, captured, &Utc),
        Err(Dropped::Unreadable)
    );
    assert_eq!(
        resolve("2026-02-01 09:00", captured, captured, &Utc),
        Err(Dropped::NotAhead),
        "before the capture"
    );
    // Read a week late: tomorrow has gone.
    assert_eq!(
        resolve("tomorrow at 9", captured, utc("2026-03-08T10:00:00Z"), &Utc),
        Err(Dropped::NotAhead)
    );
}

#[test]
fn a_set_reminder_or_a_dismissal_is_never_overridden() {
    let at = Some(utc("2026-03-02T09:00:00Z"));
    let fresh = Standing {
        has_reminder: false,
        dismissed: false,
    };
    assert_eq!(offered(fresh, at), at);
    assert_eq!(
        offered(fresh, None),
        None,
        "a new answer with none clears it"
    );
    let set = Standing {
        has_reminder: true,
        ..fresh
    };
    assert_eq!(offered(set, at), None);
    let dismissed = Standing {
        dismissed: true,
        ..fresh
    };
    assert_eq!(offered(dismissed, at), None);
}
