//! The reminder tools' arguments.
use super::super::*;

#[test]
fn a_reminder_s_time_is_read_in_words_and_refused_when_gone_or_unreadable() {
    let now = DateTime::parse_from_rfc3339("2026-12-02T10:00:00Z")
        .unwrap()
        .with_timezone(&Utc);
    let args = |id: &str, when: &str| SetReminderArgs {
        id: id.into(),
        when: when.into(),
    };
    let set = args("n1", "in 2 hours");
    assert_eq!(
        set.checked(now, &Utc),
        Ok(("n1", Some(now + chrono::Duration::hours(2))))
    );
    assert_eq!(args("n1", "none").checked(now, &Utc), Ok(("n1", None)));
    let gone = args("n1", "2020-01-01 9:00")
        .checked(now, &Utc)
        .unwrap_err();
    assert!(gone.contains("has passed"), "{gone}");
    let unread = args("n1", "someday").checked(now, &Utc).unwrap_err();
    assert!(unread.contains("cannot read \"someday\""), "{unread}");
    assert!(args(" ", "tomorrow").checked(now, &Utc).is_err());
    let until = ListRemindersArgs {
        until: Some("tomorrow".into()),
    };
    assert!(until.checked_until(now, &Utc).unwrap().is_some());
    assert_eq!(
        ListRemindersArgs::default().checked_until(now, &Utc),
        Ok(None)
    );
}
