use super::*;
use crate::words::Locale;

#[test]
fn each_notice_reads_in_the_person_s_words() {
    let at = DateTime::parse_from_rfc3339("2026-12-01T09:00:00Z")
        .unwrap()
        .with_timezone(&Utc);
    let en = crate::words::words(Locale::En);
    let due = notification(
        &Notice::Due {
            note_id: "a".into(),
            title: "call the plumber".into(),
            at,
        },
        en,
        &Utc,
    );
    assert_eq!(due.summary, "Reminder");
    assert_eq!(due.body, "call the plumber");
    let keys: Vec<&str> = due.actions.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, [OPEN, DONE, SNOOZE]);
    assert_eq!(due.actions[2].1, "Snooze 1 h");
    let seoul = chrono::FixedOffset::east_opt(9 * 3600).unwrap();
    let ko = crate::words::words(Locale::Ko);
    let overdue = notification(
        &Notice::Overdue {
            note_id: "a".into(),
            title: "배관공".into(),
            at,
        },
        ko,
        &seoul,
    );
    assert_eq!(overdue.summary, "Tue 01 Dec 18:00부터 지남");
    let summary = notification(
        &Notice::Summary {
            due: 0,
            overdue: 5,
            note_ids: vec!["a".into(), "b".into()],
        },
        en,
        &Utc,
    );
    assert_eq!(summary.summary, "0 reminders due, 5 overdue");
    assert_eq!(summary.actions.len(), 1, "open only");
    assert_eq!(summary.notes, ["a", "b"]);
    let review = review(3, 5, en);
    assert_eq!(
        (review.summary.as_str(), review.body.as_str()),
        ("Daily review", "3 due today, 5 notes from yesterday")
    );
}
